/**
 * @module leaderboard/pages/submission-page
 * A submission's page: the summary (final score, band, agent, iteration, times, cost) and its
 * breakdown, with the Objective's engineering breakdown nested for the agent profile; each
 * part is drawn by `submission/` (one renderer per component in `submission/details/`).
 * Invariants: it renders the public view only (`toPublicBreakdown`: no finding locations, no
 * citations) through the contract's types, so nothing the breakdown does not mean to publish
 * — and no hidden test content, which the engine never receives — can reach the page; every
 * text is escaped by `html`.
 */
import type { PublicBreakdownWire } from "@bouts/contracts";
import type { PublicChallenge, StoredScore } from "../store.ts";
import type { CostBreakdown } from "@bouts/ranking";
import { describeProfile, formatDateTime, formatDuration, formatUsd, isoTime } from "./format.ts";
import { html, type Html } from "./html.ts";
import { challengePath } from "./index-page.ts";
import { renderDocument } from "./layout.ts";
import { renderBreakdownBody } from "./submission/breakdown.ts";
import { renderExact } from "./submission/exact.ts";

/** Everything a submission page shows. */
export interface SubmissionPageData {
  challenge: PublicChallenge;
  agentName: string;
  score: StoredScore;
  /** The public view of the stored breakdown. */
  breakdown: PublicBreakdownWire;
  /** What the run cost, priced with the table in force (absent: not shown). */
  cost?: CostBreakdown;
}

/** The cost fact: the amount with its math per model, or why there is none. */
function renderCostFact(cost: CostBreakdown): Html {
  const amount =
    cost.status === "priced" && cost.usd !== null
      ? html`${formatUsd(cost.usd)} <span class="exact">(exactly $${cost.usd})</span>`
      : cost.status === "not-priced"
        ? html`not priced: a model has no price`
        : html`not measured: the telemetry reported no tokens`;
  const models = cost.models.map(
    (m) =>
      html`<li>
        ${m.model ?? "no model named"}: ${m.tokensIn} in × $${m.inputUsdPerMTok ?? "?"} +
        ${m.tokensOut} out × $${m.outputUsdPerMTok ?? "?"} per million tokens =
        ${m.usd === null ? "not priced" : html`$${m.usd}`}
      </li>`,
  );
  const prices = cost.prices
    ? html`prices revision ${cost.prices.revision}, as of ${cost.prices.asOf}`
    : html`no price table set`;
  return html`<div class="fact-wide">
    <dt>Cost</dt>
    <dd class="cost">
      ${amount}${
        models.length > 0
          ? html`<ul class="cost-models">
              ${models}
            </ul>`
          : null
      }
      <span class="note"
        >${prices}${cost.agentWallMs !== null ? html`; agent wall time ${formatDuration(cost.agentWallMs)}` : null}</span
      >
    </dd>
  </div>`;
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
            <dt>Judged by</dt>
            <dd class="judging judging-${b.judging.panel}">${JUDGING_LABELS[b.judging.panel]}</dd>
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
          ${data.cost ? renderCostFact(data.cost) : null}
        </dl>
        <p class="note">
          Hidden tests stay hidden: only their counts are published. Finding locations and evidence
          citations are shown to the submitting agent only.
        </p>
      </section>
      ${renderJudging(b.judging)} ${renderBreakdownBody(b, "", 2)}
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

type Judging = PublicBreakdownWire["judging"];

const JUDGING_LABELS: Record<Judging["panel"], string> = {
  heuristic: "the offline heuristic panel (static analysis, no model)",
  model: "model judges",
  mixed: "a mixed panel: heuristic and model judges",
  unspecified: "judges of unrecorded provenance",
};

const KIND_LABELS: Record<Judging["judges"][number]["kind"], string> = {
  heuristic: "heuristic: static analysis, no model",
  model: "model",
  unspecified: "not recorded",
};

/** Who graded the judged components: one row per judge, with its model or its method. */
function renderJudging(j: Judging): Html {
  return html`<section class="judging-panel" aria-labelledby="judges-heading">
    <h2 id="judges-heading">Judges</h2>
    <p class="judging judging-${j.panel}">${j.summary}</p>
    ${
      j.judges.length === 0
        ? null
        : html`<div class="table-scroll" role="region" aria-label="The judges" tabindex="0">
            <table class="judges judge-provenance">
              <thead>
                <tr>
                  <th scope="col">Judge</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Model or method</th>
                  <th scope="col">Graded</th>
                </tr>
              </thead>
              <tbody>
                ${j.judges.map(
                  (x) =>
                    html`<tr>
                      <th scope="row">${x.judge}</th>
                      <td class="judge-kind judge-kind-${x.kind}">${KIND_LABELS[x.kind]}</td>
                      <td>
                        ${x.kind === "model" ? `${x.provider}: ${x.model}` : (x.method ?? "—")}
                      </td>
                      <td>${x.components.join(", ")}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}
