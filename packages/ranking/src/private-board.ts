/**
 * @module ranking/private-board
 * The private board of a closed challenge (docs/design.md §29) and its shake-up: each agent's
 * public standing (the open board's rules), and its private standing from its final choices
 * scored on the full suite. Invariants: a pure function of the results, the full scores and the
 * choices, never of their order; same tiebreaks as the public board. Pure: no I/O, no clock.
 */
import { RankRanges, type IntervalEnds } from "./rank-ranges.ts";
import {
  computeAgentStanding,
  timeToFinal,
  type RankingMode,
  type ResultRecord,
} from "./standing-rules.ts";
import { compareStandings, type Standing } from "./standing.ts";

/** A submission's full-suite score. */
export interface FullScore {
  score: number;
  unrounded: string;
  interval: IntervalEnds | null;
}

/** One row of a private board. */
export interface PrivateBoardEntry {
  rank: number;
  agentId: string;
  submissionId: string;
  /** True when the agent chose this submission; false when its latest counted by default. */
  chosen: boolean;
  score: number;
  unrounded: string;
  iterations: number;
  timeToFinalMs: number;
  submittedAt: number;
  interval: IntervalEnds | null;
  rankRange: { best: number; worst: number };
  tied: boolean;
  publicRank: number;
  publicScore: number;
  /** publicRank − rank: positive moved up at close, negative down. */
  rankChange: number;
}

const byIteration = (a: ResultRecord, b: ResultRecord) =>
  a.iteration - b.iteration || a.submittedAt - b.submittedAt;

/**
 * The private board: for every agent on the public board, the submission that counts is the
 * best on the full suite among its chosen ones (higher rounded score, then the earlier
 * submission), or its latest scored one if it chose none; a submission with no full score counts
 * with its public one. Ranked by `compareStandings`, iterations as on the public board, time to
 * final from the challenge's opening (`openedAt`, epoch ms; docs/design.md §36).
 * @example computePrivateBoard(results, full, choices, "latest", openedAt)[0].rankChange // 2: up two ranks
 */
export function computePrivateBoard(
  results: readonly ResultRecord[],
  full: ReadonlyMap<string, FullScore>,
  choices: ReadonlyMap<string, ReadonlySet<string>>,
  mode: RankingMode,
  openedAt: number,
): PrivateBoardEntry[] {
  const byAgent = new Map<string, ResultRecord[]>();
  for (const r of results) byAgent.set(r.agentId, [...(byAgent.get(r.agentId) ?? []), r]);
  const publicOrder: Standing[] = [];
  const rows: {
    standing: Standing;
    entry: Omit<PrivateBoardEntry, "rank" | "rankRange" | "tied" | "publicRank" | "rankChange">;
  }[] = [];
  for (const [agentId, own] of byAgent) {
    const pub = computeAgentStanding(own, mode, openedAt);
    if (!pub) continue;
    publicOrder.push(pub);
    const ordered = [...own].sort(byIteration);
    const latest = ordered[ordered.length - 1]!;
    const chosenIds = choices.get(agentId);
    const chosen = chosenIds ? ordered.filter((r) => chosenIds.has(r.submissionId)) : [];
    const fullOf = (r: ResultRecord): FullScore =>
      full.get(r.submissionId) ?? { score: r.score, unrounded: r.unrounded, interval: null };
    let pick = latest;
    if (chosen.length > 0) {
      pick = chosen[0]!;
      for (const r of chosen) {
        const a = fullOf(r).score;
        const b = fullOf(pick).score;
        if (a > b || (a === b && r.submittedAt < pick.submittedAt)) pick = r;
      }
    }
    const f = fullOf(pick);
    const standing: Standing = {
      agentId,
      score: f.score,
      iterations: latest.iteration,
      timeToFinalMs: timeToFinal(pick.submittedAt, openedAt),
      submittedAt: pick.submittedAt,
    };
    rows.push({
      standing,
      entry: {
        agentId,
        submissionId: pick.submissionId,
        chosen: chosen.length > 0,
        score: f.score,
        unrounded: f.unrounded,
        iterations: standing.iterations,
        timeToFinalMs: standing.timeToFinalMs,
        submittedAt: standing.submittedAt,
        interval: f.interval,
        publicScore: pub.score,
      },
    });
  }
  const publicRank = new Map(
    publicOrder.sort(compareStandings).map((s, i) => [s.agentId, i + 1] as const),
  );
  rows.sort((a, b) => compareStandings(a.standing, b.standing));
  const ranges = RankRanges.build(
    rows.map(
      (r) =>
        [r.entry.agentId, r.entry.interval ?? { low: r.entry.score, high: r.entry.score }] as const,
    ),
  );
  return rows.map((r, i) => {
    const range = ranges.rangeOf(r.entry.agentId, i + 1) ?? { best: i + 1, worst: i + 1 };
    const was = publicRank.get(r.entry.agentId) ?? i + 1;
    return {
      rank: i + 1,
      ...r.entry,
      rankRange: range,
      tied: range.best !== range.worst,
      publicRank: was,
      rankChange: was - (i + 1),
    };
  });
}
