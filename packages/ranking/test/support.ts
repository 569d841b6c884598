/**
 * @module ranking/test/support
 * Builders and a brute-force reference board for the tests: the reference sorts everything on
 * every query, so it is obviously right and obviously slow. Not exported from the package.
 */
import fc from "fast-check";
import { BANDS, resolveBand } from "@bouts/scoring";
import {
  compareStandings,
  type BandCounts,
  type RankedStanding,
  type Standing,
} from "../src/standing.ts";

/** A valid standing with overridable fields. */
export function buildStanding(overrides: Partial<Standing> & { agentId: string }): Standing {
  return {
    score: 50,
    iterations: 1,
    timeToFinalMs: 60_000,
    submittedAt: 1_700_000_000_000,
    ...overrides,
  };
}

/** Minutes:seconds as milliseconds, as the engineering spec writes times. */
export function minutesSeconds(text: string): number {
  const [m, s] = text.split(":").map(Number) as [number, number];
  return (m * 60 + s) * 1000;
}

/** Standings from a small key space so that every tiebreak level is exercised. */
export function arbitraryStanding(agentIds: readonly string[]): fc.Arbitrary<Standing> {
  return fc.record({
    agentId: fc.constantFrom(...agentIds),
    score: fc.oneof(
      fc.constantFrom(0, 14, 15, 34, 35, 54, 55, 74, 75, 89, 90, 100),
      fc.integer({ min: 0, max: 100 }),
    ),
    iterations: fc.integer({ min: 1, max: 3 }),
    timeToFinalMs: fc.integer({ min: 0, max: 2 }),
    submittedAt: fc.integer({ min: 0, max: 2 }),
  });
}

/** Agent ids that sort in interesting ways: prefixes, non-ASCII, code units above 0xff, surrogates. */
export const AGENT_IDS = [
  "a",
  "ab",
  "b",
  "B",
  "é",
  "ÿ",
  "Ā",
  "日本",
  "\ud83d\ude00",
  "\uffff",
  "a\u00ff",
  "z",
];

/** The reference board: a Map and a full sort per query. */
export class ReferenceBoard {
  readonly byAgent = new Map<string, Standing>();

  upsert(s: Standing): { previousRank: number | null; rank: number } {
    const previousRank = this.rankOf(s.agentId);
    this.byAgent.set(s.agentId, s);
    return { previousRank, rank: this.rankOf(s.agentId)! };
  }

  remove(agentId: string): number | null {
    const rank = this.rankOf(agentId);
    this.byAgent.delete(agentId);
    return rank;
  }

  sorted(): RankedStanding[] {
    return [...this.byAgent.values()].sort(compareStandings).map((s, i) => ({ ...s, rank: i + 1 }));
  }

  rankOf(agentId: string): number | null {
    const i = this.sorted().findIndex((s) => s.agentId === agentId);
    return i < 0 ? null : i + 1;
  }

  bands(): BandCounts {
    const counts = Object.fromEntries(BANDS.map(({ key }) => [key, 0])) as BandCounts;
    for (const s of this.byAgent.values()) counts[resolveBand(s.score).key]++;
    return counts;
  }
}
