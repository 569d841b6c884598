/**
 * @module leaderboard/pages/submission/breakdown
 * One breakdown drawn so the math can be followed: each component's score, weight and
 * contribution (chart and table), how each was scored (its renderer in `details/`), the
 * adjustments with their evidence, the final unrounded and rounded score, the flags and the
 * engine's own math lines; for an agent run, what each figure rests on (`provenance.ts`).
 * Invariants: it draws the public view only; every text is escaped by `html`.
 */
import type { PublicBreakdownWire } from "@bouts/contracts";
import { renderComponentBars, renderCompositionChart } from "../charts.ts";
import { formatSigned } from "../format.ts";
import { html, type Html } from "../html.ts";
import { renderComponentDetails } from "./details/index.ts";
import { renderExact } from "./exact.ts";
import {
  renderAdjustmentProvenance,
  renderComponentProvenance,
  renderProvenanceLabel,
  renderProvenanceTag,
} from "./provenance.ts";

type Adjustment = PublicBreakdownWire["adjustments"][number];

function renderComponentsTable(b: PublicBreakdownWire, id: string): Html {
  const parts = b.components.map((c) => ({
    label: c.label,
    weight: c.weight,
    contribution: c.contribution.value,
    contributionText: c.contribution.text,
    score: c.score.value,
    scoreText: c.score.text,
  }));
  return html`${renderCompositionChart(parts, b.weightedSum.text)}
    <p class="chart-key">
      Each segment is a component: its length is the component's weight, the dark part what it
      contributed (score × weight). The dark parts add up to the weighted sum,
      ${b.weightedSum.text}.
    </p>
    <div class="table-scroll" role="region" aria-labelledby="${id}-caption" tabindex="0">
      <table class="components">
        <caption id="${id}-caption">
          Components: score × weight = contribution
        </caption>
        <thead>
          <tr>
            <th scope="col">Component</th>
            <th scope="col" class="num">Score</th>
            <th scope="col" class="num">Weight</th>
            <th scope="col" class="num">Contribution</th>
            <th scope="col" class="chart-col">
              Score (top, of 100) and contribution (bottom, of its weight)
            </th>
          </tr>
        </thead>
        <tbody>
          ${b.components.map(
            (c, i) =>
              html`<tr>
                <th scope="row">
                  <span class="swatch c${i % 8}" aria-hidden="true"></span>${c.label}
                  ${renderProvenanceTag(c)}
                </th>
                <td class="num">${c.score.text}</td>
                <td class="num">× ${c.weight}%</td>
                <td class="num">= ${renderExact(c.contribution)}</td>
                <td class="chart-col">${renderComponentBars(i, parts[i]!)}</td>
              </tr>`,
          )}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Weighted sum</th>
            <td></td>
            <td class="num">${b.components.reduce((s, c) => s + c.weight, 0)}%</td>
            <td class="num">= ${renderExact(b.weightedSum)}</td>
            <td></td>
          </tr>
        </tfoot>
      </table>
    </div>`;
}

function renderComponentSections(b: PublicBreakdownWire, level: 3 | 4): Html[] {
  return b.components.map((c) => {
    const heading = html`${c.label}: ${c.score.text}`;
    return html`<section class="component" aria-label="${c.label}">
      ${level === 3 ? html`<h3>${heading}</h3>` : html`<h4>${heading}</h4>`}
      <p class="formula"><code>${c.formula}</code></p>
      ${renderComponentProvenance(c)} ${renderComponentDetails(c)}
      ${
        c.notes.length > 0
          ? html`<ul class="notes">
              ${c.notes.map((n) => html`<li>${n}</li>`)}
            </ul>`
          : null
      }
    </section>`;
  });
}

function renderEvidence(a: Adjustment): Html | null {
  if (a.evidence.length === 0) return null;
  // Breakdowns stored before provenance have no "seen by" column.
  const seenBy = a.evidence.some((e) => e.provenance !== undefined);
  return html`<table class="compact evidence">
    <caption>
      Evidence for ${a.label}
    </caption>
    <thead>
      <tr>
        <th scope="col">Observed</th>
        <th scope="col" class="num">Points</th>
        <th scope="col">Citation</th>
        ${seenBy ? html`<th scope="col">Seen by</th>` : null}
      </tr>
    </thead>
    <tbody>
      ${a.evidence.map(
        (e) =>
          html`<tr>
            <td>${e.item}</td>
            <td class="num">${e.points === null ? "—" : formatSigned(String(e.points))}</td>
            <td>${e.citation}</td>
            ${
              seenBy
                ? html`<td>
                    ${e.provenance ? renderProvenanceLabel(e.provenance) : "not stated"}
                  </td>`
                : null
            }
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function renderAdjustments(b: PublicBreakdownWire): Html {
  if (b.adjustments.length === 0) {
    return html`<p>No adjustments: the final score is the weighted sum.</p>`;
  }
  return html`<ul class="adjustments">
    ${b.adjustments.map(
      (a) =>
        html`<li>
          <p>
            <strong>${a.label}</strong>:
            <span class="points">${formatSigned(a.points.text)}</span> — ${a.detail}
          </p>
          ${renderAdjustmentProvenance(a.provenance)} ${renderEvidence(a)}
        </li>`,
    )}
  </ul>`;
}

function renderFinal(b: PublicBreakdownWire): Html {
  return html`<table class="compact final-steps">
    <caption>
      From the weighted sum to the final score
    </caption>
    <tbody>
      <tr>
        <th scope="row">Weighted sum</th>
        <td class="num">${renderExact(b.weightedSum)}</td>
      </tr>
      ${b.adjustments.map(
        (a) =>
          html`<tr>
            <th scope="row">${a.label}</th>
            <td class="num">${formatSigned(a.points.text)}</td>
          </tr>`,
      )}
      <tr class="total">
        <th scope="row">Final, unrounded</th>
        <td class="num">${renderExact(b.final.unrounded)}</td>
      </tr>
      <tr class="total">
        <th scope="row">Final, rounded half-up</th>
        <td class="num">${b.final.rounded}</td>
      </tr>
      ${
        b.interval
          ? html`<tr class="interval">
              <th scope="row">${b.interval.level} % interval</th>
              <td class="num">
                ${renderExact(b.interval.low)} – ${renderExact(b.interval.high)}
                <span class="interval-method"
                  >${b.interval.replicates} bootstrap replicates (${b.interval.method}), seed
                  <code>${b.interval.seed}</code>; resampled:
                  ${
                    b.interval.resampled.length > 0
                      ? b.interval.resampled.join("; ")
                      : "nothing varies"
                  }${b.interval.widenedToPoint ? "; widened to include the score" : ""}</span
                >
              </td>
            </tr>`
          : null
      }
      <tr>
        <th scope="row">Band</th>
        <td>
          <span class="band band-${b.band.key}">${b.band.label}</span> (${b.band.min}–${b.band.max}:
          ${b.band.meaning})
        </td>
      </tr>
    </tbody>
  </table>`;
}

/** The body of one breakdown: components, how each was scored, adjustments, final, flags, math. */
export function renderBreakdownBody(b: PublicBreakdownWire, prefix: string, level: 2 | 3): Html {
  const h = (id: string, label: string) =>
    level === 2
      ? html`<h2 id="${prefix}${id}">${label}</h2>`
      : html`<h3 id="${prefix}${id}">${label}</h3>`;
  return html`<section aria-labelledby="${prefix}components">
      ${h("components", "Components")} ${renderComponentsTable(b, `${prefix}components`)}
    </section>
    <section aria-labelledby="${prefix}how">
      ${h("how", "How each component was scored")}
      ${renderComponentSections(b, level === 2 ? 3 : 4)}
    </section>
    <section aria-labelledby="${prefix}adjustments">
      ${h("adjustments", "Adjustments")} ${renderAdjustments(b)}
    </section>
    <section aria-labelledby="${prefix}final">
      ${h("final", "Final score")} ${renderFinal(b)}
    </section>
    ${
      b.flags.length > 0
        ? html`<section aria-labelledby="${prefix}flags">
            ${h("flags", "Flags")}
            <ul class="flags">
              ${b.flags.map((f) => html`<li>${f.message}</li>`)}
            </ul>
          </section>`
        : null
    }
    <section aria-labelledby="${prefix}math">
      ${h("math", "The math, line by line")}
      <pre class="math">${b.math.join("\n")}</pre>
    </section>`;
}
