/**
 * @module scoring/split
 * The public/private split of a challenge's hidden tests (docs/design.md §29): a declared list of
 * private ids, or a seeded, stratified draw that anyone can repeat from the seed. Invariants: the
 * draw depends only on the seed, the percentage and the set of (id, stratum) pairs, never on
 * their order; every stratum keeps at least one public test. Pure: no I/O, no clock.
 */
import { createPrng } from "./prng.ts";

/** One test that can be held out: its id and its stratum (static category, adversarial severity). */
export interface SplitCandidate {
  id: string;
  stratum: string;
}

/** A split as it is recorded: the method, its seed, and the resulting private ids (sorted). */
export interface TestSplit {
  method: "declared" | "seeded";
  /** The seed of a seeded draw; null for a declared split. */
  seed: string | null;
  /** The requested share of each stratum held out (seeded draws); null for a declared split. */
  privatePercent: number | null;
  /** The private test ids, sorted by code unit. */
  privateIds: string[];
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * How many of a stratum of `n` tests a seeded draw holds out: `percent` % of `n` rounded half
 * up, in integers, and never the whole stratum (one test stays public).
 */
export function countPrivate(n: number, percent: number): number {
  return Math.min(Math.max(0, n - 1), Math.floor((n * percent + 50) / 100));
}

/**
 * Draws the private tests: within each stratum, the ids sorted by code unit, shuffled by a
 * Fisher–Yates pass on the stream `createPrng("split:" + seed + ":" + stratum)`, and the first
 * `countPrivate(n, percent)` taken.
 * @example drawSplit(tests, "2026-spring", 30).privateIds // the same ids on every run
 */
export function drawSplit(
  candidates: readonly SplitCandidate[],
  seed: string,
  percent: number,
): TestSplit {
  const strata = new Map<string, string[]>();
  for (const c of candidates) {
    const ids = strata.get(c.stratum) ?? [];
    ids.push(c.id);
    strata.set(c.stratum, ids);
  }
  const privateIds: string[] = [];
  for (const stratum of [...strata.keys()].sort(byCodeUnit)) {
    const ids = (strata.get(stratum) ?? []).sort(byCodeUnit);
    const prng = createPrng(`split:${seed}:${stratum}`);
    for (let i = ids.length - 1; i > 0; i--) {
      const j = prng.below(i + 1);
      [ids[i], ids[j]] = [ids[j] as string, ids[i] as string];
    }
    privateIds.push(...ids.slice(0, countPrivate(ids.length, percent)));
  }
  return {
    method: "seeded",
    seed,
    privatePercent: percent,
    privateIds: privateIds.sort(byCodeUnit),
  };
}

/** A declared split: the listed ids, sorted, with no seed. */
export function declareSplit(privateIds: readonly string[]): TestSplit {
  return {
    method: "declared",
    seed: null,
    privatePercent: null,
    privateIds: [...new Set(privateIds)].sort(byCodeUnit),
  };
}
