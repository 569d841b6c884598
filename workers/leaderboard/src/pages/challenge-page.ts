/**
 * @module leaderboard/pages/challenge-page
 * A challenge's page: what it asks, and its leaderboard (rank, agent, score, band,
 * iterations, time to final, cost, trajectory drawn with its class), one keyset page at a time,
 * and score against cost with the Pareto frontier.
 * Invariants: the board region carries the board version and the WebSocket path, so the
 * live module can refresh it in place; it renders in full without scripts; agent names and
 * every other text are escaped by `html`.
 */
import type { BoardPageBody } from "../reads.ts";
import type { CostPlot, TrajectoryView } from "../rpc.ts";
import type { PublicChallenge } from "../store.ts";
import { renderCostChart, renderTrajectoryChart } from "./charts.ts";
import {
  describeBand,
  describeDuration,
  describeProfile,
  describeTrajectoryClass,
  formatDuration,
  formatUsd,
} from "./format.ts";
import { html, type Html } from "./html.ts";
import { challengePath, renderPublicationFact } from "./index-page.ts";
import { renderDocument } from "./layout.ts";

/** Everything a challenge page shows. */
export interface ChallengePageData {
  challenge: PublicChallenge;
  page: BoardPageBody;
  /** Display names by agent id (an agent without one shows its id). */
  names: Record<string, string>;
  trajectories: TrajectoryView[];
  limit: number;
  /** The page size used when the URL names none (kept out of links). */
  defaultLimit: number;
  cursor: string | null;
  /** The board's score-against-cost plot (first page only; null when it could not be read). */
  costPlot: CostPlot | null;
  /** A closed split challenge's private board section (private-board-section.ts), or null. */
  privateBoard?: Html | null;
}

const BAND_ORDER = ["elite", "strong", "competent", "struggling", "weak", "failed"] as const;
const BAND_SCORES: Record<(typeof BAND_ORDER)[number], number> = {
  elite: 90,
  strong: 75,
  competent: 55,
  struggling: 35,
  weak: 15,
  failed: 0,
};

/** The public path of a submission's breakdown page. */
export function submissionPath(submissionId: string): string {
  return `/submissions/${encodeURIComponent(submissionId)}`;
}

function pageHref(ch: PublicChallenge, limit: number, defaultLimit: number, cursor: string | null) {
  const params = new URLSearchParams();
  if (limit !== defaultLimit) params.set("limit", String(limit));
  if (cursor) params.set("cursor", cursor);
  const query = params.toString();
  return `${challengePath(ch)}${query ? `?${query}` : ""}`;
}

/** ISO 8601 duration for `<time datetime>`: PT22M14S. */
function isoDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `PT${h ? `${h}H` : ""}${m ? `${m}M` : ""}${s || (!h && !m) ? `${s}S` : ""}`;
}

const RANK_RANGE_HELP = "The ranks each agent could take given the 95 % score intervals";

/** Interval end as shown: at most two decimals, trailing zeros dropped. */
const end = (v: number): string => String(Math.round(v * 100) / 100);

/** The rank range cell: "2–3 tied" when the intervals overlap, the rank alone otherwise. */
function renderRankRange(entry: BoardPageBody["entries"][number]): Html {
  const { best, worst } = entry.rankRange;
  const iv = `95 % interval of the score: ${end(entry.interval.low)}–${end(entry.interval.high)}`;
  return html`<td class="num rank-range${entry.tied ? " tied" : ""}" title="${iv}">
    ${best === worst ? String(best) : `${best}–${worst}`}${
      entry.tied
        ? html` <span class="tie-mark">tied</span
            ><span class="visually-hidden"
              >: statistically tied, could rank ${best} to ${worst}</span
            >`
        : null
    }
    <span class="interval">${end(entry.interval.low)}–${end(entry.interval.high)}</span>
  </td>`;
}

const TIME_HELP =
  "From the challenge's opening to the ranked submission: the same start for every agent (design §36)";

const COST_HELP =
  "What the ranking submission cost: its tokens per model, priced by the platform's price table";

/** A column of a board table: its header, right-aligned when numeric, and a tooltip. */
export interface BoardColumn {
  label: string;
  num?: boolean;
  help?: string;
}

const NUM_CLASS = html`class="num"`;

/** A column's header cell. */
export function renderColumnHeader(col: BoardColumn): Html {
  const help = col.help ? html` title="${col.help}"` : null;
  return html`<th scope="col" ${col.num ? NUM_CLASS : null}${help}>${col.label}</th>`;
}

/**
 * The board's columns, in order: the header row is drawn from this list, and a baseline's note
 * spans the columns after its own cells, so every row has as many cells as the header.
 */
const BOARD_COLUMNS: BoardColumn[] = [
  { label: "Rank", num: true },
  { label: "Rank range", num: true, help: RANK_RANGE_HELP },
  { label: "Agent" },
  { label: "Score", num: true },
  { label: "Band" },
  { label: "Iterations", num: true },
  { label: "Time to final", num: true, help: TIME_HELP },
  { label: "Cost", num: true, help: COST_HELP },
  { label: "Trajectory" },
];

/** A baseline row's own cells before its note: rank, rank range, agent, score, band. */
const BASELINE_LEAD_CELLS = 5;

/** The cost cell: the amount, or why there is none (never $0 for silence). */
function renderCostCell(cost: BoardPageBody["entries"][number]["cost"]): Html {
  if (cost.status === "priced" && cost.usd !== null) {
    const tokens = `${cost.tokensIn ?? 0} tokens in, ${cost.tokensOut ?? 0} out; exactly $${cost.usd}`;
    return html`<td class="num cost" title="${tokens}">${formatUsd(cost.usd)}</td>`;
  }
  const why =
    cost.status === "not-priced"
      ? html`<span class="cost-unknown" title="a model of this run has no price in the table"
          >not priced</span
        >`
      : html`<span class="cost-unknown" title="the run's telemetry reported no tokens"
          >not measured</span
        >`;
  return html`<td class="num cost">${why}</td>`;
}

/**
 * Score against cost with the Pareto frontier, and what it leaves out; nothing while no entry
 * is priced (an empty plot says less than the Cost column already does).
 */
function renderCostSection(data: ChallengePageData): Html | null {
  const plot = data.costPlot;
  if (!plot || plot.points.length === 0) return null;
  const name = (id: string) => data.names[id] ?? id;
  // A priced entry implies a price table; the guard only satisfies the type.
  const prices = plot.prices
    ? html`Prices: revision ${plot.prices.revision}, as of ${plot.prices.asOf}.`
    : null;
  return html`<section id="cost" aria-labelledby="cost-heading">
    <h2 id="cost-heading">Score against cost</h2>
    <p class="showing">
      ${prices} ${plot.points.length} priced ${plot.points.length === 1 ? "entry" : "entries"}
      drawn; ${plot.unknownCost} not measured or not priced. Entries on the Pareto frontier (none
      cheaper scores as high) are joined and marked.
    </p>
    ${renderCostChart(
      plot.points.map((p) => ({
        name: name(p.agentId),
        usd: p.usd,
        score: Number(p.unrounded.replace("…", "")),
        onFrontier: p.onFrontier,
      })),
      formatUsd,
    )}
  </section>`;
}

function renderRow(
  entry: BoardPageBody["entries"][number],
  name: string,
  detail: TrajectoryView | undefined,
): Html {
  const band = describeBand(entry.score);
  const cls = describeTrajectoryClass(entry.trajectoryClass);
  const points = detail?.trajectory ?? [];
  return html`<tr data-agent-id="${entry.agentId}">
    <td class="num rank">${entry.rank}</td>
    ${renderRankRange(entry)}
    <th scope="row" class="agent"><span class="agent-name">${name}</span></th>
    <td class="num score">
      ${
        detail
          ? html`<a href="${submissionPath(detail.submissionId)}"
              >${entry.score}<span class="visually-hidden">: score breakdown of ${name}</span></a
            >`
          : entry.score
      }${detail && detail.unrounded !== String(entry.score) ? html`<span class="unrounded">${detail.unrounded}</span>` : null}
    </td>
    <td><span class="band band-${band.key}" title="${band.meaning}">${band.label}</span></td>
    <td class="num">${entry.iterations}</td>
    <td class="num">
      <time
        datetime="${isoDuration(entry.timeToFinalMs)}"
        title="${describeDuration(entry.timeToFinalMs)} from the challenge's opening"
        >${formatDuration(entry.timeToFinalMs)}</time
      >
    </td>
    ${renderCostCell(entry.cost)}
    <td class="trajectory">
      ${points.length > 0 ? renderTrajectoryChart(points, cls.label) : null}<span
        class="trajectory-class"
        title="${cls.meaning}"
        >${cls.label}</span
      >
    </td>
  </tr>`;
}

/** A baseline's reference line: marked, unranked, linked to its breakdown. */
function renderBaselineRow(b: BoardPageBody["baselines"][number]): Html {
  const band = describeBand(b.score);
  return html`<tr class="baseline" data-baseline="${b.kind}">
    <td class="num rank">
      <span aria-hidden="true">—</span><span class="visually-hidden">no rank</span>
    </td>
    <td class="num rank-range">
      <span aria-hidden="true">—</span><span class="visually-hidden">no rank range</span>
    </td>
    <th scope="row" class="agent">
      <span class="baseline-mark">Baseline</span> <span class="agent-name">${b.label}</span>
    </th>
    <td class="num score">
      <a href="${submissionPath(b.submissionId)}"
        >${b.score}<span class="visually-hidden"
          >: score breakdown of the ${b.label} baseline</span
        ></a
      >${b.unrounded !== String(b.score) ? html`<span class="unrounded">${b.unrounded}</span>` : null}
    </td>
    <td><span class="band band-${band.key}" title="${band.meaning}">${band.label}</span></td>
    <td colspan="${BOARD_COLUMNS.length - BASELINE_LEAD_CELLS}" class="baseline-note">
      reference line: takes no rank
    </td>
  </tr>`;
}

/**
 * The page's rows: its entries, with each baseline after the `afterRank`-th agent when that
 * agent is on this page (a baseline above everyone heads the first page; one below everyone
 * ends the last).
 */
function boardRows(data: ChallengePageData, byAgent: Map<string, TrajectoryView>): Html[] {
  const { page } = data;
  const lines = page.baselines ?? [];
  const rows: Html[] = [];
  const firstPage = !data.cursor;
  if (firstPage)
    for (const b of lines.filter((l) => l.afterRank === 0)) rows.push(renderBaselineRow(b));
  for (const e of page.entries) {
    rows.push(renderRow(e, data.names[e.agentId] ?? e.agentId, byAgent.get(e.agentId)));
    for (const b of lines.filter((l) => l.afterRank === e.rank && l.afterRank > 0))
      rows.push(renderBaselineRow(b));
  }
  return rows;
}

function renderBoard(data: ChallengePageData): Html {
  const { challenge: ch, page } = data;
  const byAgent = new Map(data.trajectories.map((t) => [t.agentId, t]));
  const first = page.entries[0]?.rank ?? 0;
  const last = page.entries[page.entries.length - 1]?.rank ?? 0;
  const wsPath = `/v1/challenges/${encodeURIComponent(ch.id)}/leaderboard/ws`;
  const showing =
    page.total === 0
      ? "No agent has a scored submission yet."
      : `Showing ranks ${first}–${last} of ${page.total} ${page.total === 1 ? "agent" : "agents"}.`;
  const table =
    page.entries.length > 0 || (!data.cursor && (page.baselines ?? []).length > 0)
      ? html`<div class="table-scroll" role="region" aria-labelledby="board-caption" tabindex="0">
          <table class="board">
            <caption id="board-caption">
              Leaderboard of ${ch.title}, best first
            </caption>
            <thead>
              <tr>
                ${BOARD_COLUMNS.map(renderColumnHeader)}
              </tr>
            </thead>
            <tbody>
              ${boardRows(data, byAgent)}
            </tbody>
          </table>
        </div>`
      : html`<p class="empty">
          ${page.total === 0 ? "The leaderboard is empty: no submission has been scored yet." : "This page is past the end of the leaderboard."}
        </p>`;
  const pager =
    data.cursor || page.next
      ? html`<nav class="pager" aria-label="Leaderboard pages">
          <ul>
            ${data.cursor ? html`<li><a href="${pageHref(ch, data.limit, data.defaultLimit, null)}">First page</a></li>` : null}
            ${page.next ? html`<li><a rel="next" href="${pageHref(ch, data.limit, data.defaultLimit, page.next)}">Next page</a></li>` : null}
          </ul>
        </nav>`
      : null;
  return html`<section
    id="board"
    class="board-section"
    aria-labelledby="board-heading"
    data-live-board
    data-ws="${wsPath}"
    data-version="${page.version}"
  >
    <h2 id="board-heading">Leaderboard</h2>
    <p class="live-status" data-live-status hidden></p>
    <p class="showing">${showing}</p>
    ${table} ${pager}
    <h3 id="bands-heading">Bands</h3>
    <ul class="band-counts" aria-labelledby="bands-heading">
      ${BAND_ORDER.map((key) => {
        const band = describeBand(BAND_SCORES[key]);
        return html`<li>
          <span class="band band-${key}">${band.label}</span>
          <span class="count">${page.bands[key]}</span>
        </li>`;
      })}
    </ul>
  </section>`;
}

/** The whole challenge page. */
export function renderChallengePage(data: ChallengePageData): Html {
  const ch = data.challenge;
  const facts = html`<dl class="facts">
    <div>
      <dt>Status</dt>
      <dd>${ch.status === "closed" ? "Closed" : "Open"}</dd>
    </div>
    <div>
      <dt>Scoring</dt>
      <dd>
        ${describeProfile(ch.profile)}${ch.profile === "agent" ? html` (family ${ch.family})` : null}
      </dd>
    </div>
    <div>
      <dt>Ranks by</dt>
      <dd>
        ${ch.rankingMode === "best" ? "each agent's best score" : "each agent's latest score"}
      </dd>
    </div>
    <div>
      <dt>Iterations</dt>
      <dd>up to ${ch.maxIterations}</dd>
    </div>
    ${
      ch.closesAt !== null && ch.status !== "closed"
        ? html`<div>
            <dt>Deadline</dt>
            <dd>
              <time datetime="${new Date(ch.closesAt).toISOString()}"
                >${new Date(ch.closesAt).toISOString().slice(0, 16).replace("T", " ")} UTC</time
              >
            </dd>
          </div>`
        : null
    }
    ${
      ch.version > 1
        ? html`<div class="fact-wide">
            <dt>Version</dt>
            <dd>
              ${ch.version}: the hidden tests were revised and every counted submission rescored on
              them (the challenge's history lists each change)
            </dd>
          </div>`
        : null
    }
    ${
      ch.runtime
        ? html`<div>
            <dt>Runtime</dt>
            <dd>${ch.runtime}</dd>
          </div>`
        : null
    }
    ${renderPublicationFact(ch)}
  </dl>`;
  // The rule in full is prose: below the facts, so the grid stays one compact band of cells.
  const rule = html`<p class="note ranking-rule">
    Ties go to fewer iterations, then less time from the challenge's opening to the ranked
    submission (the earlier submission wins, however late its agent entered). The rank range shows
    the ranks a score's 95 % interval allows; overlapping entries are marked tied (the official rank
    is unchanged).
  </p>`;
  const deliverables =
    ch.deliverables.length > 0
      ? html`<h2 id="deliverables">Deliverables</h2>
          <ul class="deliverables">
            ${ch.deliverables.map(
              (d) =>
                html`<li>
                  <code>${d.path}</code
                  >${d.required ? null : html` <span class="optional">(optional)</span>`}:
                  ${d.description}
                </li>`,
            )}
          </ul>`
      : null;
  return renderDocument({
    title: ch.title,
    description: `Leaderboard of ${ch.title} on Bouts.`,
    breadcrumbs: [{ label: "Challenges", href: "/" }, { label: ch.title }],
    live: true,
    body: html`<h1>${ch.title}</h1>
      <p class="lede">${ch.description}</p>
      ${facts} ${rule} ${renderBoard(data)} ${renderCostSection(data)} ${data.privateBoard ?? null}
      ${deliverables}`,
  });
}
