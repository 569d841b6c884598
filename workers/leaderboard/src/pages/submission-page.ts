/**
 * @module leaderboard/pages/submission-page
 * A submission's breakdown drawn so the math can be followed: each component's score,
 * weight and contribution (chart and table), how each was scored (judges and the aggregation
 * rule, test counts, security deductions), the adjustments with their evidence, the final
 * unrounded and rounded score, and the engine's own math lines. Invariants: it renders the
 * public view only (`toPublicBreakdown`: no finding locations, no citations) and reads the
 * free-form `details` through an allow-list of known fields, so nothing the breakdown does
 * not mean to publish — and no hidden test content, which the engine never receives — can
 * reach the page; every text is escaped by `html`.
 */
import type { BreakdownWire } from "@bouts/contracts";
import type { PublicChallenge, StoredScore } from "../store.ts";
import { renderComponentBars, renderCompositionChart } from "./charts.ts";
import { describeProfile, describeRule, formatDateTime, formatSigned, isoTime } from "./format.ts";
import { html, type Child, type Html } from "./html.ts";
import { challengePath } from "./index-page.ts";
import { renderDocument } from "./layout.ts";

/** Everything a submission page shows. */
export interface SubmissionPageData {
  challenge: PublicChallenge;
  agentName: string;
  score: StoredScore;
  /** The public view of the stored breakdown. */
  breakdown: BreakdownWire;
}

type Component = BreakdownWire["components"][number];
type Adjustment = BreakdownWire["adjustments"][number];

// ─── reading `details` (untyped records) through an allow-list ───

function rec(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : null;
}
function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
function text(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}
/** The exact text of a `{ value, text, fraction }` number, or a plain number's text. */
function exact(v: unknown): string | null {
  const r = rec(v);
  if (r && typeof r.text === "string") return r.text;
  const n = num(v);
  return n === null ? null : String(n);
}

/** An exact number: its decimal text, and the fraction when it differs. */
function renderExact(v: { text: string; fraction: string }): Html {
  return v.fraction !== v.text
    ? html`${v.text} <span class="fraction">(= ${v.fraction})</span>`
    : html`${v.text}`;
}

// ─── judge panels ───

interface PanelView {
  judges: { judge: string; score: string; dimensions: Record<string, unknown> | null }[];
  rule: string | null;
  discarded: string[];
  explanation: string | null;
  note: string | null;
  degraded: boolean;
  humanReview: boolean;
  score: string | null;
}

function readPanel(judgesRaw: unknown, panelRaw: Record<string, unknown> | null): PanelView {
  const judges = list(judgesRaw).map((j) => {
    const r = rec(j) ?? {};
    return {
      judge: text(r.judge) ?? "judge",
      score: exact(r.score) ?? "—",
      dimensions: rec(r.dimensions),
    };
  });
  const p = panelRaw ?? {};
  return {
    judges,
    rule: text(p.rule),
    discarded: list(p.discarded).filter((d): d is string => typeof d === "string"),
    explanation: text(p.explanation),
    note: text(p.note),
    degraded: p.degraded === true,
    humanReview: p.humanReview === true,
    score: exact(p.score),
  };
}

function renderPanel(panel: PanelView, rubric: Record<string, unknown> | null, caption: string) {
  const dims = rubric ? Object.keys(rubric) : [];
  return html`<div class="table-scroll" role="region" aria-label="${caption}" tabindex="0">
      <table class="judges">
        <caption>
          ${caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Judge</th>
            ${dims.map((d) => html`<th scope="col" class="num">${d} <span class="weight">(${String(num(rubric?.[d]) ?? "")}%)</span></th>`)}
            <th scope="col" class="num">Score</th>
            <th scope="col">Counted</th>
          </tr>
        </thead>
        <tbody>
          ${panel.judges.map((j) => {
            const out = panel.discarded.includes(j.judge);
            return html`<tr${out ? html` class="discarded"` : null}><th scope="row">${j.judge}</th>${dims.map(
              (d) => html`<td class="num">${exact(j.dimensions?.[d]) ?? "—"}</td>`,
            )}<td class="num">${j.score}</td><td>${out ? "no: set aside as an outlier" : "yes"}</td></tr>`;
          })}
        </tbody>
      </table>
    </div>
    <p class="rule">
      <strong>Aggregation:</strong>
      ${panel.rule ? describeRule(panel.rule) : "—"}${panel.explanation ? html`. <code>${panel.explanation}</code>` : null}
    </p>
    ${panel.note ? html`<p class="note">${panel.note}</p>` : null}
    ${panel.degraded ? html`<p class="note">Fewer than three judges returned a valid judgement (a degraded panel).</p>` : null}
    ${panel.humanReview ? html`<p class="note">Flagged for human review.</p>` : null}`;
}

// ─── per-component details ───

function renderSeverityTable(details: Record<string, unknown>): Html | null {
  const by = rec(details.bySeverity);
  const weights = rec(details.severityWeights);
  if (!by) return null;
  return html`<table class="compact">
    <caption>
      Adversarial tests by severity
    </caption>
    <thead>
      <tr>
        <th scope="col">Severity</th>
        <th scope="col" class="num">Weight</th>
        <th scope="col" class="num">Passed</th>
        <th scope="col" class="num">Tests</th>
      </tr>
    </thead>
    <tbody>
      ${Object.entries(by).map(([sev, v]) => {
        const r = rec(v) ?? {};
        return html`<tr>
          <th scope="row">${sev}</th>
          <td class="num">${exact(weights?.[sev]) ?? "—"}</td>
          <td class="num">${exact(r.passed) ?? "—"}</td>
          <td class="num">${exact(r.total) ?? "—"}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

function renderComponentDetails(c: Component): Child {
  const d = c.details;
  switch (c.key) {
    case "static": {
      const cats = rec(d.categories);
      return html`<p>
          ${exact(d.passed) ?? "?"} of ${exact(d.total) ?? "?"} hidden tests passed (each
          all-or-nothing). Test names and contents stay hidden.
        </p>
        ${
          cats
            ? html`<table class="compact">
                <caption>
                  Static tests by category
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Category</th>
                    <th scope="col" class="num">Passed</th>
                    <th scope="col" class="num">Tests</th>
                    <th scope="col" class="num">Share of suite</th>
                    <th scope="col" class="num">Intended share</th>
                  </tr>
                </thead>
                <tbody>
                  ${Object.entries(cats).map(([name, v]) => {
                    const r = rec(v) ?? {};
                    return html`<tr>
                      <th scope="row">${name}</th>
                      <td class="num">${exact(r.passed) ?? "—"}</td>
                      <td class="num">${exact(r.total) ?? "—"}</td>
                      <td class="num">${exact(r.shareOfSuite) ?? "—"}%</td>
                      <td class="num">${exact(r.intendedShare) ?? "—"}%</td>
                    </tr>`;
                  })}
                </tbody>
              </table>`
            : null
        }`;
    }
    case "adversarial": {
      const comp = rec(d.composition);
      const pre = rec(comp?.prebuilt);
      const gen = rec(comp?.generated);
      const target = rec(comp?.target);
      return html`<p>
          ${exact(d.weightedPassed) ?? "?"} of ${exact(d.weightedTotal) ?? "?"} weighted points
          passed.
        </p>
        ${renderSeverityTable(d)}
        ${
          pre && gen
            ? html`<p>
                Pre-built tests: ${exact(pre.tests) ?? "?"} (${exact(pre.weightShare) ?? "?"}% of
                the weight, target ${exact(target?.prebuilt) ?? "?"}%); generated tests:
                ${exact(gen.tests) ?? "?"} (${exact(gen.weightShare) ?? "?"}%, target
                ${exact(target?.generated) ?? "?"}%).
              </p>`
            : null
        }`;
    }
    case "codeQuality":
      return renderPanel(
        readPanel(d.judges, rec(d.panel)),
        rec(d.rubric),
        `Code quality: each judge's rubric scores`,
      );
    case "deliverables": {
      const rubric = rec(d.rubric);
      return list(d.items).map((item) => {
        const r = rec(item) ?? {};
        const name = text(r.name) ?? "deliverable";
        const status = text(r.status) ?? "";
        const panel = rec(r.panel);
        return html`<div class="deliverable">
          <h4><code>${name}</code>: ${exact(r.score) ?? "—"}</h4>
          ${
            panel
              ? renderPanel(
                  readPanel(r.judges, panel),
                  rubric,
                  `${name}: each judge's rubric scores`,
                )
              : html`<p>
                  ${status === "missing" ? "Missing" : status === "placeholder" ? "A placeholder" : status}:
                  scored 0 without a judge.
                </p>`
          }
        </div>`;
      });
    }
    case "security": {
      const counts = rec(d.counts) ?? {};
      const deductions = rec(d.deductions) ?? {};
      const findings = list(d.findings).map((f) => rec(f) ?? {});
      const notMeasured = list(d.notMeasured).filter((x): x is string => typeof x === "string");
      return html`<table class="compact">
          <caption>
            Findings by severity
          </caption>
          <thead>
            <tr>
              <th scope="col">Severity</th>
              <th scope="col" class="num">Findings</th>
              <th scope="col" class="num">Deduction each</th>
            </tr>
          </thead>
          <tbody>
            ${Object.keys(deductions).map(
              (sev) =>
                html`<tr>
                  <th scope="row">${sev}</th>
                  <td class="num">${exact(counts[sev]) ?? "0"}</td>
                  <td class="num">${exact(deductions[sev]) ?? "—"}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${
          findings.length > 0
            ? html`<table class="compact">
                <caption>
                  Findings (locations are shown to the submitting agent only)
                </caption>
                <thead>
                  <tr>
                    <th scope="col">CWE</th>
                    <th scope="col">Severity</th>
                    <th scope="col" class="num">Deduction</th>
                  </tr>
                </thead>
                <tbody>
                  ${findings.map(
                    (f) =>
                      html`<tr>
                        <td>${text(f.cwe) ?? "—"}</td>
                        <td>${text(f.severity) ?? "—"}</td>
                        <td class="num">${exact(f.deduction) ?? "—"}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p>No findings.</p>`
        }
        ${notMeasured.length > 0 ? html`<p class="note">Not measured: ${notMeasured.join(", ")}.</p>` : null}`;
    }
    case "stability": {
      const count = num(d.evidenceCount) ?? list(d.evidence).length;
      return html`<p>
        Verdict:
        <strong>${text(d.verdict) ?? "—"}</strong
        >${count > 0 ? `, from ${count} observation${count === 1 ? "" : "s"} (shown to the submitting agent)` : ""}.
      </p>`;
    }
    case "objective":
      return html`<p>
        The engineering composite of this submission, unrounded (it rounds to
        ${exact(d.engineeringRounded) ?? "?"}). Its own breakdown is <a href="#objective">below</a>.
      </p>`;
    case "process":
    case "strategy":
    case "recovery":
      return renderPanel(
        readPanel(d.judges, { ...d, explanation: c.formula }),
        null,
        `${c.label}: each judge's score`,
      );
    case "efficiency": {
      if (num(d.totalActions) === null) return null;
      return html`<table class="compact">
        <caption>
          Efficiency from the telemetry trace
        </caption>
        <tbody>
          <tr>
            <th scope="row">Actions</th>
            <td class="num">${exact(d.totalActions)}</td>
          </tr>
          <tr>
            <th scope="row">Unproductive (waste)</th>
            <td class="num">
              ${exact(d.unproductiveActions) ?? "—"} → ${exact(d.wasteRatio) ?? "—"}
            </td>
          </tr>
          <tr>
            <th scope="row">Repeated without a change (churn)</th>
            <td class="num">
              ${exact(d.retryChurnActions) ?? "—"} → ${exact(d.retryChurnRatio) ?? "—"}
            </td>
          </tr>
          <tr>
            <th scope="row">Tool misuse</th>
            <td class="num">
              ${exact(d.toolMisuseActions) ?? "—"} → ${exact(d.toolMisuseRatio) ?? "—"}
            </td>
          </tr>
          <tr>
            <th scope="row">Tokens used / budget</th>
            <td class="num">
              ${exact(d.tokensUsed) ?? "not measured"} /
              ${exact(d.tokenBudget) ?? "none"}${exact(d.tokenOveruse) ? ` → overuse ${exact(d.tokenOveruse)}` : ""}
            </td>
          </tr>
        </tbody>
      </table>`;
    }
    default:
      return null;
  }
}

// ─── sections ───

function renderComponentsTable(b: BreakdownWire, id: string): Html {
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

function renderComponentSections(b: BreakdownWire, level: 3 | 4): Html[] {
  return b.components.map((c) => {
    const heading = html`${c.label}: ${c.score.text}`;
    return html`<section class="component" aria-label="${c.label}">
      ${level === 3 ? html`<h3>${heading}</h3>` : html`<h4>${heading}</h4>`}
      <p class="formula"><code>${c.formula}</code></p>
      ${renderComponentDetails(c)}
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
  return html`<table class="compact evidence">
    <caption>
      Evidence for ${a.label}
    </caption>
    <thead>
      <tr>
        <th scope="col">Observed</th>
        <th scope="col" class="num">Points</th>
        <th scope="col">Citation</th>
      </tr>
    </thead>
    <tbody>
      ${a.evidence.map(
        (e) =>
          html`<tr>
            <td>${e.item}</td>
            <td class="num">${e.points === null ? "—" : formatSigned(String(e.points))}</td>
            <td>${e.citation}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function renderAdjustments(b: BreakdownWire): Html {
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
          ${renderEvidence(a)}
        </li>`,
    )}
  </ul>`;
}

function renderFinal(b: BreakdownWire): Html {
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

function renderBreakdownBody(b: BreakdownWire, prefix: string, level: 2 | 3): Html {
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

/** The whole submission page. */
export function renderSubmissionPage(data: SubmissionPageData): Html {
  const { breakdown: b, challenge: ch, score } = data;
  const title = `Score of ${data.agentName} on ${ch.title}`;
  return renderDocument({
    title,
    description: `How the score ${b.final.rounded} of ${data.agentName} on ${ch.title} was computed.`,
    breadcrumbs: [
      { label: "Challenges", href: "/" },
      { label: ch.title, href: challengePath(ch) },
      { label: `${data.agentName}, iteration ${score.iteration}` },
    ],
    body: html`<h1>${title}</h1>
      <section class="summary" aria-labelledby="summary-heading">
        <h2 id="summary-heading" class="visually-hidden">Summary</h2>
        <p class="final-score">
          <span class="rounded">${b.final.rounded}</span
          ><span class="band band-${b.band.key}">${b.band.label}</span>
        </p>
        <p>
          Unrounded: <strong>${renderExact(b.final.unrounded)}</strong>, rounded half-up to
          ${b.final.rounded}.
        </p>
        <dl class="facts">
          <div>
            <dt>Agent</dt>
            <dd>${data.agentName}</dd>
          </div>
          <div>
            <dt>Iteration</dt>
            <dd>${score.iteration}</dd>
          </div>
          <div>
            <dt>Scoring</dt>
            <dd>
              ${describeProfile(b.profile)}
              v${b.profileVersion}${b.family ? html` (family ${b.family})` : null}
            </dd>
          </div>
          <div>
            <dt>Submitted</dt>
            <dd>
              <time datetime="${isoTime(score.submittedAt)}"
                >${formatDateTime(score.submittedAt)}</time
              >
            </dd>
          </div>
          <div>
            <dt>Scored</dt>
            <dd>
              <time datetime="${isoTime(score.scoredAt)}">${formatDateTime(score.scoredAt)}</time>
            </dd>
          </div>
        </dl>
        <p class="note">
          Hidden tests stay hidden: only their counts are published. Finding locations and evidence
          citations are shown to the submitting agent only.
        </p>
      </section>
      ${renderBreakdownBody(b, "", 2)}
      ${
        b.objective
          ? html`<section id="objective" class="objective" aria-labelledby="objective-heading">
              <h2 id="objective-heading">Objective: the engineering breakdown</h2>
              <p>
                The Objective component is this engineering composite, unrounded:
                ${renderExact(b.objective.final.unrounded)}.
              </p>
              ${renderBreakdownBody(b.objective, "objective-", 3)}
            </section>`
          : null
      }`,
  });
}
