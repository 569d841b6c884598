/**
 * @module leaderboard/board/certainty-view
 * How sure each rank is (docs/leaderboard.md, "Rank ranges and ties"): every standing's interval
 * ends in `RankRanges`, refined by paired comparisons on shared tests within PAIRED_WINDOW ranks
 * (design.md §23, §27). Invariants: a range depends only on the board as stored, never on the
 * order of updates; a second read of an unchanged board compares nothing; a first read reads
 * from storage only the window's agents whose standing changed since they were last read.
 */
import {
  countPaired,
  PAIRED_WINDOW,
  RankRanges,
  type PairedEntry,
  type RankingIndex,
} from "@bouts/ranking";
import { compilePairing, type CompiledPairing, type PairingProfile } from "@bouts/scoring";
import type { RankCertainty } from "../rpc.ts";
import { findInterval, listStandingIntervals, listWindowRows, pointOf } from "./sql.ts";
import type { BoardView, StandingChange } from "./view.ts";

/** Compiled pairing profiles and window rows held in memory (a page's window is ~200). */
const MAX_CACHED_PAIRINGS = 20_000;
/** Certainties held for the board as it stands (50 pages of 100). */
const MAX_MEMO = 5_000;

/** An entry whose certainty is asked: its agent and official rank. */
export interface RankedAgent {
  agentId: string;
  rank: number;
}

/** Each entry's rank range, tie mark and interval. */
export class RankCertaintyView implements BoardView<readonly RankedAgent[], RankCertainty[]> {
  readonly #sql: SqlStorage;
  readonly #ranking: { read(): RankingIndex };
  /** The standings' 95 % intervals: built lazily, then moved with each standing. */
  #ranges: RankRanges | null = null;
  /** Compiled pairing profiles by submission id (a stored profile never changes but by a rebuild). */
  #pairings = new Map<string, CompiledPairing | null>();
  /** What the paired window read of each agent's ranking submission: its point and profile. */
  #windowRows = new Map<string, { point: number; profile: CompiledPairing | null }>();
  /** Each agent's certainty on the board as it stands. */
  #memo = new Map<string, RankCertainty>();

  /** `ranking` gives the board in official order (the window is cut from it). */
  constructor(sql: SqlStorage, ranking: { read(): RankingIndex }) {
    this.#sql = sql;
    this.#ranking = ranking;
  }

  onStandingChanged({ agentId, standing }: StandingChange): void {
    this.#memo.clear();
    this.#windowRows.delete(agentId);
    this.#ranges?.set(agentId, findInterval(this.#sql, standing.submissionId, standing.unrounded));
  }

  onRebuild(): void {
    this.#memo.clear();
    this.#windowRows.clear();
    this.#pairings.clear();
    this.#ranges = null;
  }

  /**
   * The certainties of `ranked`, whose ranks need not be consecutive (a page by cost): computed
   * per cluster of nearby ranks, so far-apart entries never make one huge paired window.
   */
  read(ranked: readonly RankedAgent[]): RankCertainty[] {
    const order = ranked.map((e, i) => i).sort((a, b) => ranked[a]!.rank - ranked[b]!.rank);
    const out: RankCertainty[] = new Array<RankCertainty>(ranked.length);
    for (let i = 0; i < order.length;) {
      let j = i + 1;
      while (
        j < order.length &&
        ranked[order[j]!]!.rank - ranked[order[j - 1]!]!.rank <= PAIRED_WINDOW
      )
        j++;
      const cluster = order.slice(i, j);
      const got = this.#cluster(cluster.map((k) => ranked[k]!));
      cluster.forEach((k, n) => (out[k] = got[n]!));
      i = j;
    }
    return out;
  }

  /** The certainties of entries of nearby ranks, through one paired window. */
  #cluster(ranked: readonly RankedAgent[]): RankCertainty[] {
    const ranges = this.#rankRanges();
    const missing = ranked.filter((e) => !this.#memo.has(e.agentId));
    if (missing.length > 0) {
      const from = Math.min(...missing.map((e) => e.rank));
      const to = Math.max(...missing.map((e) => e.rank));
      const window = this.#pairedWindow(from - PAIRED_WINDOW, to + PAIRED_WINDOW);
      const first = window.findIndex((e) => e.rank === from);
      const counts = countPaired(ranges, window, first, to - from + 1);
      if (this.#memo.size > MAX_MEMO) this.#memo.clear();
      for (let i = first; i >= 0 && i <= first + to - from && i < window.length; i++) {
        const e = window[i]!;
        const range = ranges.rangeOf(e.agentId, e.rank, counts[i - first]) ?? {
          best: e.rank,
          worst: e.rank,
        };
        const ends = ranges.get(e.agentId);
        this.#memo.set(e.agentId, {
          rankRange: range,
          tied: range.best < range.worst,
          interval: ends ? { low: ends.low, high: ends.high } : { low: 0, high: 0 },
        });
      }
    }
    return ranked.map(
      (e) =>
        this.#memo.get(e.agentId) ?? {
          rankRange: { best: e.rank, worst: e.rank },
          tied: false,
          interval: { low: 0, high: 0 },
        },
    );
  }

  #rankRanges(): RankRanges {
    // Built lazily, from each standing's ranking submission and its interval.
    this.#ranges ??= RankRanges.build(listStandingIntervals(this.#sql));
    return this.#ranges;
  }

  /**
   * The entries ranked `fromRank … toRank` (clipped to the board) with their points and
   * compiled pairing profiles, in rank order (one query, for the agents not held).
   */
  #pairedWindow(fromRank: number, toRank: number): PairedEntry[] {
    const start = Math.max(1, fromRank);
    const around = this.#ranking.read().slice(start, Math.max(0, toRank - start + 1));
    const held = this.#windowRows;
    if (held.size + around.length > MAX_CACHED_PAIRINGS) held.clear();
    // Only agents not held (new to the window, or changed since) are read: a first read after
    // one result reads one row, not the window's ~140.
    const missing = around.filter((e) => !held.has(e.agentId)).map((e) => e.agentId);
    if (missing.length > 0)
      for (const row of listWindowRows(this.#sql, missing))
        held.set(row.agentId, {
          point: pointOf(row.unrounded).low,
          profile: row.profile ? this.#compiledPairing(row.submissionId, row.profile) : null,
        });
    return around.map((e) => {
      const row = held.get(e.agentId);
      return {
        agentId: e.agentId,
        rank: e.rank,
        point: row ? row.point : e.score,
        profile: row ? row.profile : null,
      };
    });
  }

  #compiledPairing(submissionId: string, text: string): CompiledPairing | null {
    let compiled = this.#pairings.get(submissionId);
    if (compiled === undefined) {
      if (this.#pairings.size >= MAX_CACHED_PAIRINGS) this.#pairings.clear();
      // Checked against PairingProfileSchema when recorded.
      compiled = compilePairing(JSON.parse(text) as PairingProfile);
      this.#pairings.set(submissionId, compiled);
    }
    return compiled;
  }
}
