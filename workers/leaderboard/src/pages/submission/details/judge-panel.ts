/**
 * @module leaderboard/pages/submission/details/judge-panel
 * A judge panel drawn as a table: each judge's scores (per rubric dimension when there is a
 * rubric), who was set aside, and the aggregation rule that applied. Shared by code quality,
 * deliverables and the judged agent-run components. Every text is escaped by `html`.
 */
import type { z } from "zod";
import type { PanelSummarySchema } from "@bouts/contracts";
import { describeRule } from "../../format.ts";
import { html, type Html } from "../../html.ts";

/** What a panel table shows. */
export interface PanelView {
  judges: { judge: string; score: string; dimensions: Readonly<Record<string, number>> | null }[];
  rule: string;
  discarded: readonly string[];
  explanation: string;
  note: string | null;
  degraded: boolean;
  humanReview: boolean;
}

/** A rubric-scored panel (code quality, a deliverable): its judges' dimensions and the panel. */
export interface RubricPanel {
  judges: readonly {
    judge: string;
    dimensions: Readonly<Record<string, number>>;
    score: { text: string };
  }[];
  panel: z.infer<typeof PanelSummarySchema>;
}

/** A rubric-scored panel as a panel table's view. */
export function toRubricPanelView({ judges, panel }: RubricPanel): PanelView {
  return {
    judges: judges.map((j) => ({ judge: j.judge, score: j.score.text, dimensions: j.dimensions })),
    rule: panel.rule,
    discarded: panel.discarded,
    explanation: panel.explanation,
    note: panel.note,
    degraded: panel.degraded,
    humanReview: panel.humanReview,
  };
}

/** The panel's table, its rule and its notes; `rubric` adds a column per dimension. */
export function renderPanel(
  panel: PanelView,
  rubric: Readonly<Record<string, number>> | null,
  caption: string,
): Html {
  const dims = rubric ? Object.keys(rubric) : [];
  return html`<div class="table-scroll" role="region" aria-label="${caption}" tabindex="0">
      <table class="judges">
        <caption>
          ${caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Judge</th>
            ${dims.map((d) => html`<th scope="col" class="num">${d} <span class="weight">(${String(rubric?.[d] ?? "")}%)</span></th>`)}
            <th scope="col" class="num">Score</th>
            <th scope="col">Counted</th>
          </tr>
        </thead>
        <tbody>
          ${panel.judges.map((j) => {
            const out = panel.discarded.includes(j.judge);
            return html`<tr${out ? html` class="discarded"` : null}><th scope="row">${j.judge}</th>${dims.map(
              (d) => html`<td class="num">${j.dimensions?.[d] ?? "—"}</td>`,
            )}<td class="num">${j.score}</td><td>${out ? "no: set aside as an outlier" : "yes"}</td></tr>`;
          })}
        </tbody>
      </table>
    </div>
    <p class="rule">
      <strong>Aggregation:</strong>
      ${describeRule(panel.rule)}${panel.explanation ? html`. <code>${panel.explanation}</code>` : null}
    </p>
    ${panel.note ? html`<p class="note">${panel.note}</p>` : null}
    ${panel.degraded ? html`<p class="note">Fewer than three judges returned a valid judgement (a degraded panel).</p>` : null}
    ${panel.humanReview ? html`<p class="note">Flagged for human review.</p>` : null}`;
}
