/**
 * @module ranking/rescore-board
 * What a candidate challenge version does to a board (docs/design.md §30): which submissions
 * count (and so are rescored), and each agent's standing before and after. Invariants: the same
 * standing rules and tiebreaks as the live board (`computeAgentStanding`, `compareStandings`);
 * a pure function of the results, never of their order. Pure: no I/O, no clock.
 */
import { computeAgentStanding, type RankingMode, type ResultRecord } from "./standing-rules.ts";
import { compareStandings } from "./standing.ts";

// Places only: time to final counts from the challenge's opening, one moment for every agent, so
// the order it gives is the submissions' order whatever that moment is (docs/design.md §36).
const ANY_OPENING = 0;

/**
 * The submissions a new version must rescore for the board to be rebuilt on it: each agent's
 * ranking submission under `mode`, and its latest (so the iterations it used stay counted).
 */
export function countedSubmissionIds(
  results: readonly ResultRecord[],
  mode: RankingMode,
): Set<string> {
  const ids = new Set<string>();
  for (const own of groupByAgent(results).values()) {
    const standing = computeAgentStanding(own, mode, ANY_OPENING);
    if (!standing) continue;
    ids.add(standing.submissionId);
    ids.add(standing.trajectory[standing.trajectory.length - 1]!.submissionId);
  }
  return ids;
}

/** One agent's place on a board. */
export interface BoardPlace {
  rank: number;
  submissionId: string;
  score: number;
  unrounded: string;
}

/** One agent's place before and after a version change (null: not on that board). */
export interface PlaceChange {
  agentId: string;
  before: BoardPlace | null;
  after: BoardPlace | null;
}

function groupByAgent(results: readonly ResultRecord[]): Map<string, ResultRecord[]> {
  const byAgent = new Map<string, ResultRecord[]>();
  for (const r of results) {
    const own = byAgent.get(r.agentId);
    if (own) own.push(r);
    else byAgent.set(r.agentId, [r]);
  }
  return byAgent;
}

/** Each agent's place on the board made of `results`. */
export function rankBoard(
  results: readonly ResultRecord[],
  mode: RankingMode,
): Map<string, BoardPlace> {
  const standings = [...groupByAgent(results).values()]
    .map((own) => computeAgentStanding(own, mode, ANY_OPENING))
    .filter((s) => s !== null)
    .sort(compareStandings);
  return new Map(
    standings.map((s, i) => [
      s.agentId,
      { rank: i + 1, submissionId: s.submissionId, score: s.score, unrounded: s.unrounded },
    ]),
  );
}

/**
 * Every agent's place on the live board (`live`) and on the board the candidate would publish:
 * the rescored submissions only, each with its new score (`rescored`, by submission id), which
 * is what a promotion rebuilds the board from. Sorted by the new rank (agents off the new
 * board last, by their old rank).
 * @example compareBoards(live, new Map([["s1", { score: 70, unrounded: "70" }]]), "latest")
 */
export function compareBoards(
  live: readonly ResultRecord[],
  rescored: ReadonlyMap<string, { score: number; unrounded: string }>,
  mode: RankingMode,
): PlaceChange[] {
  const before = rankBoard(live, mode);
  const next: ResultRecord[] = [];
  for (const r of live) {
    const s = rescored.get(r.submissionId);
    if (s) next.push({ ...r, score: s.score, unrounded: s.unrounded });
  }
  const after = rankBoard(next, mode);
  const agents = new Set([...before.keys(), ...after.keys()]);
  const key = (p: PlaceChange) => [p.after?.rank ?? Infinity, p.before?.rank ?? Infinity];
  return [...agents]
    .map((agentId) => ({
      agentId,
      before: before.get(agentId) ?? null,
      after: after.get(agentId) ?? null,
    }))
    .sort((a, b) => {
      const [a1, a2] = key(a);
      const [b1, b2] = key(b);
      return a1! - b1! || a2! - b2! || (a.agentId < b.agentId ? -1 : 1);
    });
}
