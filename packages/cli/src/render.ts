/**
 * @module cli/render
 * Terminal renderings of the API's answers: a submission's status, a score breakdown (every
 * component with its weight and contribution, the adjustments, the final score), a leaderboard
 * page, a live rank change, final choices, webhook endpoints, an agent's submissions, an audit
 * history and a problem. Plain text, fixed-width columns, no colour codes (pipes stay clean).
 * Pure. Invariant: every text field of an answer goes through `cleanField`, so no name, label,
 * reason or detail can move the cursor, clear the screen or forge a line.
 */
import type { Schemas } from "@bouts/client";
import { cleanField } from "./terminal-text.ts";

type Text = { text: string };
type Provenance = "observed" | "self-reported" | "cross-checked";
/** The parts of a breakdown answer (`GET /v1/submissions/{id}/breakdown`) shown here. */
type Breakdown = Pick<
  Schemas["ScoreBreakdown"],
  "submissionId" | "view" | "profile" | "profileVersion" | "final"
> & {
  breakdown: {
    components: {
      label: string;
      weight: number;
      score: Text;
      contribution: Text;
      /** What an agent-run component rests on, and its cap (docs/scoring.md). */
      provenance?: { kind: Provenance; cap: { max: number; uncapped: Text } | null } | null;
    }[];
    adjustments: { label: string; points: Text; provenance?: { kind: Provenance } | null }[];
    band: { label: string };
  };
};

/** How a provenance reads (the submission page's words). */
const PROVENANCE_WORDS: Readonly<Record<Provenance, string>> = {
  observed: "observed",
  "self-reported": "self-reported",
  "cross-checked": "self-reported, cross-checked",
};

/** "  [observed]", "  [self-reported, capped at 25, uncapped 80]", or nothing. */
function provenanceNote(
  p: { kind: Provenance; cap?: { max: number; uncapped: Text } | null } | null | undefined,
): string {
  if (!p) return "";
  const cap = p.cap ? `, capped at ${p.cap.max}, uncapped ${p.cap.uncapped.text}` : "";
  return `  [${PROVENANCE_WORDS[p.kind]}${cap}]`;
}
type Page = Schemas["LeaderboardPage"];
type Entry = Page["entries"][number];
type Baseline = Page["baselines"][number];
type Submission = Schemas["Submission"];

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);

/** One line for a submission's status. */
export function renderStatus(s: Submission): string {
  const extra =
    s.status === "failed"
      ? `: ${s.failureCode ?? "failed"}${s.failureReason ? ` (${cleanField(s.failureReason)})` : ""}`
      : s.waiting
        ? `: retrying (${cleanField(s.waiting.reason)})`
        : "";
  return `${cleanField(s.id)}  iteration ${s.iteration}  ${s.status}${extra}`;
}

/** A breakdown as a table: component, score, weight, contribution; then adjustments, final. */
export function renderBreakdown(b: Breakdown): string {
  const rows = b.breakdown.components.map(
    (c) =>
      `  ${pad(cleanField(c.label), 28)} ${lpad(c.score.text, 7)}  × ${lpad(`${c.weight}%`, 4)}  = ${lpad(c.contribution.text, 7)}${provenanceNote(c.provenance)}`,
  );
  const adjustments = b.breakdown.adjustments.map(
    (a) =>
      `  ${pad(cleanField(a.label), 28)} ${lpad(a.points.text, 7)}${provenanceNote(a.provenance)}`,
  );
  return [
    `submission ${cleanField(b.submissionId)}  (${b.view} view, ${b.profile} v${b.profileVersion})`,
    `  ${pad("component", 28)} ${lpad("score", 7)}    ${lpad("wt", 4)}    ${lpad("points", 7)}`,
    ...rows,
    ...(adjustments.length ? ["  adjustments:", ...adjustments] : []),
    `  final ${b.final.unrounded} → ${b.final.rounded}  (${cleanField(b.breakdown.band.label)})`,
  ].join("\n");
}

/** mm:ss of a duration in milliseconds. */
export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Where the page came from, which the page itself does not say. */
export interface LeaderboardContext {
  /** True for the first page (no cursor): baselines above every entry of it show there. */
  firstPage: boolean;
}

const interval = (i: Entry["interval"]) =>
  i.low === i.high ? "-" : `${i.low.toFixed(1)}–${i.high.toFixed(1)}`;
const rankRange = (r: Entry["rankRange"]) =>
  r.best === r.worst ? String(r.best) : `${r.best}–${r.worst}`;

function renderEntry(e: Entry): string {
  return [
    lpad(`#${e.rank}`, 5),
    pad(rankRange(e.rankRange), 7),
    pad(e.tied ? "tied" : "", 4),
    lpad(e.score, 3),
    pad(interval(e.interval), 11),
    pad(e.band, 10),
    lpad(e.iterations, 4),
    lpad(formatDuration(e.timeToFinalMs), 7),
    lpad(costText(e.cost), 12),
    pad(e.trajectoryClass, 10),
    // The name its operator chose (cleaned of terminal controls), else the id.
    e.agentName === null
      ? cleanField(e.agentId)
      : `${cleanField(e.agentName)} (${cleanField(e.agentId).slice(0, 8)})`,
  ].join("  ");
}

function renderBaseline(b: Baseline): string {
  return `  ${lpad("--", 5)}  baseline (${cleanField(b.kind)}, not ranked): ${b.score} (${cleanField(b.unrounded)})  ${cleanField(b.label)}`;
}

/**
 * A leaderboard page as a table: each entry's official rank, the span of ranks its score
 * interval allows and whether that makes it statistically tied, its score with the 95 %
 * interval, band, iterations, time to final, cost and trajectory; the challenge's baselines
 * as unranked lines where they fall (after the `afterRank` agents scoring at least as much);
 * the band counts, the price table and the next cursor. Every text field is cleaned of
 * terminal controls.
 */
export function renderLeaderboard(p: Page, ctx: LeaderboardContext = { firstPage: true }): string {
  const rows: string[] = [];
  const lines = p.entries.map((e) => `  ${renderEntry(e)}`);
  if (p.sort === "rank") {
    // Each baseline sits before the first entry ranked below it; one that falls before this
    // page's first entry belongs to an earlier page (or heads the first).
    const placed = new Map<number, Baseline[]>();
    for (const b of p.baselines) {
      const at = p.entries.findIndex((e) => e.rank > b.afterRank);
      const index = at === -1 ? p.entries.length : at;
      if (index === 0 && !ctx.firstPage) continue;
      placed.set(index, [...(placed.get(index) ?? []), b]);
    }
    for (let i = 0; i <= lines.length; i++) {
      for (const b of placed.get(i) ?? []) rows.push(renderBaseline(b));
      if (i < lines.length) rows.push(lines[i]!);
    }
  } else {
    rows.push(...lines, ...p.baselines.map(renderBaseline));
  }
  const bands = Object.entries(p.bands)
    .map(([band, n]) => `${band} ${n}`)
    .join(", ");
  const filter = p.maxCostUsd !== null ? `, cost at most $${cleanField(p.maxCostUsd)}` : "";
  return [
    `${p.total} ranked (board version ${p.version}, sorted by ${p.sort}${filter})`,
    `  bands: ${bands}`,
    `  prices: ${p.prices ? `table revision ${p.prices.revision} as of ${cleanField(p.prices.asOf)}` : "none set"}`,
    "  range: the ranks the 95 % score intervals allow; tied: the range spans more than one",
    `  ${[lpad("rank", 5), pad("range", 7), pad("tie", 4), lpad("pts", 3), pad("interval", 11), pad("band", 10), lpad("iter", 4), lpad("time", 7), lpad("cost", 12), pad("trajectory", 10), "agent"].join("  ")}`,
    ...rows,
    ...(p.next ? [`  … more: --cursor ${cleanField(p.next)}`] : []),
  ].join("\n");
}

/** An entry's cost as the CLI prints it: exact USD, or why there is none. */
function costText(cost: Entry["cost"] | undefined): string {
  if (!cost) return "-";
  return cost.usd !== null ? `$${cleanField(cost.usd)}` : cost.status;
}

/** A WebSocket message of the board, as lines (unknown messages shown raw). */
export function renderBoardMessage(raw: string): string {
  let msg: {
    type?: string;
    version?: number;
    changes?: { agentId: string; rank: number; previousRank: number | null; score: number }[];
  };
  try {
    msg = JSON.parse(raw) as typeof msg;
  } catch {
    return cleanField(raw);
  }
  if (msg.type !== "rank-changed" || !msg.changes) return cleanField(raw);
  return msg.changes
    .map((c) => {
      const move =
        c.previousRank === null
          ? "new"
          : c.previousRank === c.rank
            ? "="
            : `from #${c.previousRank}`;
      return `v${msg.version}  #${c.rank} (${move})  ${c.score}  ${cleanField(String(c.agentId))}`;
    })
    .join("\n");
}

// ─── Final choices ───

/** An agent's final choices on a challenge: what counts on its private board at close. */
export function renderFinalChoices(f: Schemas["FinalChoices"]): string {
  const head = `final choices on ${cleanField(f.challengeId)}: ${f.submissionIds.length} of at most ${f.limit}`;
  if (f.submissionIds.length === 0)
    return `${head}\n  none chosen: your ${f.fallback} scored submission counts on the private board`;
  return [head, ...f.submissionIds.map((id, i) => `  ${i + 1}. ${cleanField(id)}`)].join("\n");
}

// ─── Webhooks ───

type Endpoint = Schemas["WebhookEndpoint"];

function endpointState(e: Endpoint): string {
  if (!e.enabled)
    return `disabled${e.disabled ? ` since ${cleanField(e.disabled.at)}: ${cleanField(e.disabled.reason)}` : ""}`;
  const h = e.health;
  if (h.consecutiveFailures > 0)
    return `failing (${h.consecutiveFailures} in a row since ${cleanField(h.failingSince ?? "?")})`;
  return h.lastSuccessAt
    ? `ok (last delivered ${cleanField(h.lastSuccessAt)})`
    : "ok (none delivered yet)";
}

/** The agent's webhook endpoints: id, URL, event types and health; never a secret. */
export function renderWebhooks(endpoints: readonly Endpoint[]): string {
  if (endpoints.length === 0) return "no webhook endpoints";
  return endpoints
    .map((e) =>
      [
        `${cleanField(e.id)}  ${cleanField(e.url)}`,
        `  events: ${e.eventTypes.map(cleanField).join(", ")}`,
        `  state: ${endpointState(e)}`,
        ...(e.previousSecretExpiresAt
          ? [`  previous secret still signs until ${cleanField(e.previousSecretExpiresAt)}`]
          : []),
      ].join("\n"),
    )
    .join("\n");
}

/** A new endpoint and its signing secret, which the API shows this once. */
export function renderWebhookCreated(e: Endpoint & { secret: string }): string {
  return [
    `created ${cleanField(e.id)}  ${cleanField(e.url)}`,
    `  events: ${e.eventTypes.map(cleanField).join(", ")}`,
    `  secret: ${cleanField(e.secret)}`,
    "  The secret signs every delivery (Standard Webhooks). It is shown only now: store it.",
  ].join("\n");
}

// ─── Submissions and history ───

/** An agent's submissions to a challenge, newest first, one line each. */
export function renderSubmissions(list: readonly Submission[]): string {
  if (list.length === 0) return "no submissions";
  return [
    `  ${pad("submission", 36)}  ${lpad("iter", 4)}  ${pad("status", 8)}  ${pad("received", 24)}  outcome`,
    ...list.map((s) => {
      const outcome =
        s.status === "failed"
          ? `${s.failureCode ?? "failed"}${s.failureReason ? `: ${cleanField(s.failureReason)}` : ""}`
          : s.status === "waiting" && s.waiting
            ? `retrying: ${cleanField(s.waiting.reason)}`
            : "";
      return `  ${pad(cleanField(s.id), 36)}  ${lpad(s.iteration, 4)}  ${pad(s.status, 8)}  ${pad(cleanField(s.timestamps.received), 24)}  ${outcome}`.trimEnd();
    }),
  ].join("\n");
}

type AuditEvent = Schemas["AuditEvent"];

/** A state of an audit event (`before`/`after`) as `key value` pairs; JSON keeps text inert. */
function stateText(state: AuditEvent["before"]): string {
  if (!state) return "-";
  return Object.entries(state)
    .map(
      ([k, v]) => `${cleanField(k)} ${typeof v === "string" ? cleanField(v) : JSON.stringify(v)}`,
    )
    .join(", ");
}

/** An audit history page, oldest first: each event's seq, time, type, actor, cause and change. */
export function renderHistory(h: Schemas["AuditHistory"], after?: number): string {
  const lines = h.events.map((e) =>
    [
      `  #${e.seq}  ${cleanField(e.at)}  ${e.type}${e.submissionId ? `  ${cleanField(e.submissionId)}` : ""}`,
      `      by ${e.actor.kind} ${cleanField(e.actor.id)}: ${cleanField(e.cause)}`,
      `      ${stateText(e.before)} → ${stateText(e.after)}`,
    ].join("\n"),
  );
  return [
    lines.length === 0
      ? `no events${after !== undefined ? ` after #${after}` : ""}`
      : `${lines.length} event(s)${after !== undefined ? ` after #${after}` : ""}, oldest first`,
    ...lines,
    ...(h.next !== null ? [`  … more: --after ${h.next}`] : []),
  ].join("\n");
}

// ─── Problems ───

/** A problem+json answer as the lines the CLI prints: status, title, detail, then its details. */
export function renderProblem(p: Schemas["Problem"]): string {
  return [
    `${p.status} ${cleanField(p.title)}: ${cleanField(p.detail)}`,
    ...(p.errors ?? []).map((e) => `  ${cleanField(e.path) || "(body)"}: ${cleanField(e.message)}`),
    ...(p.rule ? [`  rule: ${cleanField(p.rule)}`] : []),
    ...(p.entry ? [`  entry: ${cleanField(p.entry)}`] : []),
  ].join("\n");
}
