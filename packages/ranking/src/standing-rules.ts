/**
 * @module ranking/standing-rules
 * How one agent's recorded results become its standing (docs/design.md §7, §8), and the ranking
 * modes (the one owner of `RankingMode`). Invariants: the standing is a pure function of the
 * agent's whole result history and the ranking mode, never of the order results arrived in —
 * which is what makes duplicate, stale and concurrent deliveries converge on the board a
 * sequential delivery would give. Pure: no I/O, no clock.
 */
import { classifyTrajectory, type TrajectoryClass } from "@bouts/scoring";
import type { Standing } from "./standing.ts";

/** The ranking modes as a const tuple, for `z.enum` and drizzle's `enum`. */
export const RANKING_MODES = ["latest", "best"] as const;

/** Which submission's score ranks an agent: its latest scored one, or its best. */
export type RankingMode = (typeof RANKING_MODES)[number];

/** One scored submission as the board records it (times are epoch milliseconds). */
export interface ResultRecord {
  readonly submissionId: string;
  readonly agentId: string;
  /** Rounded final score, an integer 0..100: what ranks. */
  readonly score: number;
  /** The exact unrounded final score as decimal text (shown, never compared). */
  readonly unrounded: string;
  readonly iteration: number;
  /** When the agent entered the challenge: recorded, never ranks (docs/design.md §36). */
  readonly enteredAt: number;
  readonly submittedAt: number;
  readonly scoredAt: number;
}

/** One point of a trajectory: the score of one iteration. */
export interface TrajectoryPoint {
  readonly iteration: number;
  readonly score: number;
  readonly submissionId: string;
}

/** An agent's standing plus what is shown beside it. */
export interface AgentStanding extends Standing {
  /** The submission whose score ranks the agent. */
  readonly submissionId: string;
  readonly unrounded: string;
  /** Every recorded result, by iteration (oldest first). */
  readonly trajectory: readonly TrajectoryPoint[];
  readonly trajectoryClass: TrajectoryClass;
}

// Iteration order, then submission time, then id: a total order even on inconsistent input.
function byIteration(a: ResultRecord, b: ResultRecord): number {
  return (
    a.iteration - b.iteration ||
    a.submittedAt - b.submittedAt ||
    (a.submissionId < b.submissionId ? -1 : a.submissionId > b.submissionId ? 1 : 0)
  );
}

// `best`: higher score; ties go to the earlier submission (then the lower iteration, then id).
function betterForBest(a: ResultRecord, b: ResultRecord): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.submittedAt !== b.submittedAt) return a.submittedAt < b.submittedAt;
  return byIteration(a, b) < 0;
}

/**
 * The standing of one agent from all its recorded results (at least one), or null for none.
 * `latest` ranks the highest iteration's score; `best` the best score, earlier submission on
 * ties. Iterations used = the highest iteration scored; time to final = the ranking
 * submission's submittedAt − `openedAt`, the challenge's opening (never negative): a moment
 * no agent chooses, the same for every agent, so of two equal scores and iterations the
 * earlier submission ranks first however late its agent entered (docs/design.md §36).
 * @example computeAgentStanding([r1, r2], "latest", openedAt) // ranks r2 if r2.iteration > r1.iteration
 */
export function computeAgentStanding(
  results: readonly ResultRecord[],
  mode: RankingMode,
  openedAt: number,
): AgentStanding | null {
  if (results.length === 0) return null;
  const ordered = [...results].sort(byIteration);
  const latest = ordered[ordered.length - 1]!;
  let ranking = latest;
  if (mode === "best") {
    for (const r of ordered) if (betterForBest(r, ranking)) ranking = r;
  }
  const scores = ordered.map((r) => r.score);
  return {
    agentId: ranking.agentId,
    score: ranking.score,
    iterations: latest.iteration,
    timeToFinalMs: timeToFinal(ranking.submittedAt, openedAt),
    submittedAt: ranking.submittedAt,
    submissionId: ranking.submissionId,
    unrounded: ranking.unrounded,
    trajectory: ordered.map((r) => ({
      iteration: r.iteration,
      score: r.score,
      submissionId: r.submissionId,
    })),
    trajectoryClass: classifyTrajectory(scores),
  };
}

/**
 * Milliseconds from the challenge's opening to a submission, never negative (a submission
 * before the opening, such as an operator's check of a draft, counts as 0).
 * @example timeToFinal(t0 + 60_000, t0) // 60_000
 */
export function timeToFinal(submittedAt: number, openedAt: number): number {
  return Math.max(0, submittedAt - openedAt);
}

/**
 * The moment a challenge opened, which every agent's time to final counts from: its
 * publication, or its creation for a challenge never published (an operator's draft check).
 * @example openingOf({ publishedAt: 1_000, createdAt: 10 }) // 1_000
 */
export function openingOf(ch: { publishedAt: number | null; createdAt: number }): number {
  return ch.publishedAt ?? ch.createdAt;
}

/** Whether two standings rank identically (same ordering key). */
export function sameRankingKey(a: Standing | null, b: Standing | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.agentId === b.agentId &&
    a.score === b.score &&
    a.iterations === b.iterations &&
    a.timeToFinalMs === b.timeToFinalMs &&
    a.submittedAt === b.submittedAt
  );
}
