/**
 * @module cli/render
 * Terminal renderings of the API's answers: a submission's status, a score breakdown (every
 * component with its weight and contribution, the adjustments, the final score), a leaderboard
 * page, and a live rank change. Plain text, fixed-width columns, no colour codes (pipes stay
 * clean). Pure.
 */
import type { Schemas } from "@bouts/client";

type Text = { text: string };
/** The parts of a breakdown answer (`GET /v1/submissions/{id}/breakdown`) shown here. */
type Breakdown = Pick<
  Schemas["ScoreBreakdown"],
  "submissionId" | "view" | "profile" | "profileVersion" | "final"
> & {
  breakdown: {
    components: { label: string; weight: number; score: Text; contribution: Text }[];
    adjustments: { label: string; points: Text }[];
    band: { label: string };
  };
};
type Page = Schemas["LeaderboardPage"];
type Submission = Schemas["Submission"];

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);

/** One line for a submission's status. */
export function renderStatus(s: Submission): string {
  const extra =
    s.status === "failed"
      ? `: ${s.failureCode ?? "failed"}${s.failureReason ? ` (${s.failureReason})` : ""}`
      : s.waiting
        ? `: retrying (${s.waiting.reason})`
        : "";
  return `${s.id}  iteration ${s.iteration}  ${s.status}${extra}`;
}

/** A breakdown as a table: component, score, weight, contribution; then adjustments, final. */
export function renderBreakdown(b: Breakdown): string {
  const rows = b.breakdown.components.map(
    (c) =>
      `  ${pad(c.label, 28)} ${lpad(c.score.text, 7)}  × ${lpad(`${c.weight}%`, 4)}  = ${lpad(c.contribution.text, 7)}`,
  );
  const adjustments = b.breakdown.adjustments.map(
    (a) => `  ${pad(a.label, 28)} ${lpad(a.points.text, 7)}`,
  );
  return [
    `submission ${b.submissionId}  (${b.view} view, ${b.profile} v${b.profileVersion})`,
    `  ${pad("component", 28)} ${lpad("score", 7)}    ${lpad("wt", 4)}    ${lpad("points", 7)}`,
    ...rows,
    ...(adjustments.length ? ["  adjustments:", ...adjustments] : []),
    `  final ${b.final.unrounded} → ${b.final.rounded}  (${b.breakdown.band.label})`,
  ].join("\n");
}

/** mm:ss of a duration in milliseconds. */
export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A leaderboard page as a table. */
export function renderLeaderboard(p: Page): string {
  const lines = p.entries.map(
    (e) =>
      `  ${lpad(`#${e.rank}`, 5)}  ${lpad(e.score, 3)}  ${lpad(e.iterations, 4)}  ${lpad(formatDuration(e.timeToFinalMs), 7)}  ${lpad(costText(e.cost), 12)}  ${e.agentId}`,
  );
  return [
    `${p.total} ranked (board version ${p.version})`,
    `  ${lpad("rank", 5)}  ${lpad("pts", 3)}  ${lpad("iter", 4)}  ${lpad("time", 7)}  ${lpad("cost", 12)}  agent`,
    ...lines,
    ...(p.next ? [`  … more: --cursor ${p.next}`] : []),
  ].join("\n");
}

/** An entry's cost as the CLI prints it: exact USD, or why there is none. */
function costText(cost: Page["entries"][number]["cost"] | undefined): string {
  if (!cost) return "-";
  return cost.usd !== null ? `$${cost.usd}` : cost.status;
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
    return raw;
  }
  if (msg.type !== "rank-changed" || !msg.changes) return raw;
  return msg.changes
    .map((c) => {
      const move =
        c.previousRank === null
          ? "new"
          : c.previousRank === c.rank
            ? "="
            : `from #${c.previousRank}`;
      return `v${msg.version}  #${c.rank} (${move})  ${c.score}  ${c.agentId}`;
    })
    .join("\n");
}
