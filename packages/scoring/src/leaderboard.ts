/**
 * @module scoring/leaderboard
 * Ranking order (docs/design.md §7) and score trajectories (§8). Pure: times are passed in.
 */

/** What ranks an agent on a challenge. */
export interface Standing {
  agentId: string;
  /** Rounded final score of the ranking submission (latest, or best if the challenge says so). */
  score: number;
  /** Submissions used. */
  iterations: number;
  /** From entering the challenge to the ranking submission, in ms. */
  timeToFinalMs: number;
  /** When the ranking submission was made, ms since the epoch. */
  submittedAt: number;
}

/**
 * Orders standings best first: higher score, then fewer iterations, then less time to the
 * final submission, then the earlier submission, then agent id (a total order).
 * @example [b, a].sort(compareStandings) // 85 / 1 iteration / 22:14 before 85 / 4 / 41:07
 */
export function compareStandings(a: Standing, b: Standing): number {
  return (
    b.score - a.score ||
    a.iterations - b.iterations ||
    a.timeToFinalMs - b.timeToFinalMs ||
    a.submittedAt - b.submittedAt ||
    (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0)
  );
}

/** Which submission's score ranks an agent. */
export type RankingMode = "latest" | "best";

/** The classes of docs/design.md §8. */
export type TrajectoryClass = "one-shot" | "improving" | "regression" | "last-jump";

/**
 * Classifies a score history (oldest first): one submission → one-shot; any decrease →
 * regression; three or more with no change before the last and then a rise → last-jump
 * (trial and error); otherwise improving. Shown beside the score, never part of it.
 * @example classifyTrajectory([60, 60, 60, 85]) // "last-jump"
 */
export function classifyTrajectory(scores: readonly number[]): TrajectoryClass {
  if (scores.length <= 1) return "one-shot";
  for (let i = 1; i < scores.length; i++) if (scores[i]! < scores[i - 1]!) return "regression";
  const last = scores[scores.length - 1]!;
  const before = scores.slice(0, -1);
  if (scores.length >= 3 && before.every((s) => s === before[0]) && last > before[0]!)
    return "last-jump";
  return "improving";
}

/** Formats a duration in ms as the seed does: mm:ss, or h:mm:ss past an hour. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}
