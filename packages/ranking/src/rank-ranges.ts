/**
 * @module ranking/rank-ranges
 * Rank ranges and statistical ties from the entries' 95 % score intervals (docs/leaderboard.md,
 * "Rank ranges and ties"). An entry's range runs from 1 + the number of entries whose interval
 * lies wholly above its own (they are surely better) to the board size − the number whose
 * interval lies wholly below (surely worse), each count joined by the overlapping neighbours a
 * paired comparison on shared tests orders (`countPaired`); it always contains the official rank, which stays
 * the rounded score's with its tiebreaks. An entry whose range spans more than one rank is
 * statistically tied with someone. Pure, in memory.
 *
 * Invariants: `lows` and `highs` hold every entry's interval ends, each sorted ascending, in
 * their first `size` cells. A read is two binary searches; a write moves at most `size` cells.
 */

import { orderSameShape, PAIRING_Z, type CompiledPairing } from "@bouts/scoring";

const Z_SQUARED = PAIRING_Z * PAIRING_Z;

/** An entry's interval ends on the unrounded 0–100 scale (the nearest doubles of the exact ends). */
export interface IntervalEnds {
  low: number;
  high: number;
}

/** The span of ranks an entry could take given the intervals. */
export interface RankRange {
  best: number;
  worst: number;
}

/** Index of the first cell of a[0..n) that is > x (upper bound). */
function upperBound(a: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first cell of a[0..n) that is ≥ x (lower bound). */
function lowerBound(a: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The intervals of a board's entries, by agent, with the counts a rank range needs. */
export class RankRanges {
  #ends = new Map<string, IntervalEnds>();
  #lows = new Float64Array(16);
  #highs = new Float64Array(16);

  /** Builds from every entry at once (sorts once). */
  static build(entries: Iterable<readonly [string, IntervalEnds]>): RankRanges {
    const r = new RankRanges();
    for (const [agentId, ends] of entries) r.#ends.set(agentId, checkEnds(ends));
    const n = r.#ends.size;
    r.#lows = new Float64Array(Math.max(16, n));
    r.#highs = new Float64Array(Math.max(16, n));
    let i = 0;
    for (const e of r.#ends.values()) {
      r.#lows[i] = e.low;
      r.#highs[i] = e.high;
      i++;
    }
    r.#lows.subarray(0, n).sort();
    r.#highs.subarray(0, n).sort();
    return r;
  }

  /** Entries held. */
  get size(): number {
    return this.#ends.size;
  }

  /** The agent's interval ends, if held. */
  get(agentId: string): IntervalEnds | undefined {
    return this.#ends.get(agentId);
  }

  /** Sets (or replaces) an agent's interval. */
  set(agentId: string, ends: IntervalEnds): void {
    const e = checkEnds(ends);
    const old = this.#ends.get(agentId);
    if (old && old.low === e.low && old.high === e.high) return;
    if (old) this.#drop(old);
    const n = this.#ends.size - (old ? 1 : 0);
    if (n + 1 > this.#lows.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a.subarray(0, n));
        return b;
      };
      this.#lows = grow(this.#lows);
      this.#highs = grow(this.#highs);
    }
    insertSorted(this.#lows, n, e.low);
    insertSorted(this.#highs, n, e.high);
    this.#ends.set(agentId, e);
  }

  /** Removes an agent's interval; false when it held none. */
  remove(agentId: string): boolean {
    const old = this.#ends.get(agentId);
    if (!old) return false;
    this.#drop(old);
    this.#ends.delete(agentId);
    return true;
  }

  /**
   * The agent's rank range, widened to contain its official rank; null when it holds no
   * interval for the agent. `paired` adds the entries whose intervals overlap the agent's but
   * that a paired comparison on shared tests orders (see {@link countPaired}).
   * @example ranges.rangeOf("a", 3) // { best: 2, worst: 5 }
   */
  rangeOf(
    agentId: string,
    officialRank: number,
    paired: PairedCounts = NO_PAIRED,
  ): RankRange | null {
    const e = this.#ends.get(agentId);
    if (!e) return null;
    const n = this.#ends.size;
    // Surely better: low_j > high_i. Surely worse: high_j < low_i. Never the entry itself.
    const above = n - upperBound(this.#lows, n, e.high) + paired.above;
    const below = lowerBound(this.#highs, n, e.low) + paired.below;
    return {
      best: Math.min(1 + above, officialRank),
      worst: Math.max(n - below, officialRank),
    };
  }

  #drop(old: IntervalEnds): void {
    const n = this.#ends.size;
    removeSorted(this.#lows, n, old.low);
    removeSorted(this.#highs, n, old.high);
  }
}

/** Entries a paired comparison orders against one agent: surely above it, surely below it. */
export interface PairedCounts {
  above: number;
  below: number;
}

const NO_PAIRED: PairedCounts = { above: 0, below: 0 };

/**
 * How far, in official ranks, an entry is compared pairwise: 20 entries on each side. A board of
 * up to 41 entries is compared in full; on a larger one the nearest are (benchmarks.md).
 */
export const PAIRED_WINDOW = 20;

/** A board entry as the paired comparison sees it. */
export interface PairedEntry {
  agentId: string;
  rank: number;
  /** The unrounded final score. */
  point: number;
  /** Its breakdown's pairing profile, compiled, or null (scored before pairing, or no test ids). */
  profile: CompiledPairing | null;
}

/**
 * For the entries `window[first … first + count)`, how many entries within
 * {@link PAIRED_WINDOW} ranks whose intervals overlap theirs (so `rangeOf` counts them as
 * possibly either side) a paired comparison on the tests both faced puts surely above and
 * surely below. `window` holds consecutive ranks, reaching PAIRED_WINDOW past the entries
 * counted where the board has them. Entries of another suite, or without a profile, are left
 * to the intervals. Each pair's answer depends only on its two entries, so the order of the
 * board's updates never changes it; each pair is compared once.
 * @example const counts = countPaired(ranges, window, 20, 100); ranges.rangeOf(id, rank, counts[i])
 */
export function countPaired(
  ranges: RankRanges,
  window: readonly PairedEntry[],
  first: number,
  count: number,
): PairedCounts[] {
  const n = window.length;
  const counts: PairedCounts[] = [];
  for (let k = 0; k < count; k++) counts.push({ above: 0, below: 0 });
  const lo = Math.max(0, first);
  const last = Math.min(n, first + count);
  if (lo >= last) return counts;
  // What a pair needs, unpacked once per entry into one flat scratch array over the cells any
  // counted entry reaches (STRIDE numbers each): no lookup or allocation per pair.
  const from = Math.max(0, lo - PAIRED_WINDOW);
  const to = Math.min(n, last + PAIRED_WINDOW);
  if (scratch.length < (to - from) * STRIDE) scratch = new Float64Array((to - from) * STRIDE * 2);
  const cell = scratch;
  const shapes = new Map<string, number>();
  for (let k = from; k < to; k++) {
    const e = window[k]!;
    const at = (k - from) * STRIDE;
    const ends = e.profile ? ranges.get(e.agentId) : undefined;
    // Profiles of one shape share a group; -1: no profile or no interval, never compared.
    cell[at + GROUP] = -1;
    if (!e.profile || !ends) continue;
    let group = shapes.get(e.profile.shape);
    if (group === undefined) shapes.set(e.profile.shape, (group = shapes.size));
    cell[at + GROUP] = group;
    cell[at + LOW] = ends.low;
    cell[at + HIGH] = ends.high;
    cell[at + POINT] = e.point;
    cell[at + OWN] = e.profile.ownVariance;
    cell[at + RANK] = e.rank;
  }
  for (let i = lo; i < last; i++) {
    const a = (i - from) * STRIDE;
    const group = cell[a + GROUP]!;
    if (group < 0) continue;
    const low = cell[a + LOW]!;
    const high = cell[a + HIGH]!;
    const point = cell[a + POINT]!;
    const own = cell[a + OWN]!;
    const rank = cell[a + RANK]!;
    const mine = counts[i - first]!;
    const jEnd = Math.min(n, i + PAIRED_WINDOW + 1);
    for (let j = Math.max(0, i - PAIRED_WINDOW); j < jEnd; j++) {
      // A pair inside the counted run is compared once, from its upper entry: jump over the
      // run's entries above i, and i itself.
      if (j >= lo && j <= i) {
        j = i;
        continue;
      }
      const b = (j - from) * STRIDE;
      // Another shape cannot be paired (orderPaired: null).
      if (cell[b + GROUP] !== group || Math.abs(cell[b + RANK]! - rank) > PAIRED_WINDOW) continue;
      if (cell[b + LOW]! > high || cell[b + HIGH]! < low) continue; // the intervals decide
      // Within both sides' own variance: tied, as orderSameShape would answer, without its call.
      const diff = point - cell[b + POINT]!;
      if (diff * diff <= Z_SQUARED * (own + cell[b + OWN]!)) continue;
      const order = orderSameShape(
        point,
        window[i]!.profile!,
        cell[b + POINT]!,
        window[j]!.profile!,
      );
      if (order === "tied") continue;
      const other = j >= first && j < last ? counts[j - first] : undefined;
      if (order === "second") {
        mine.above++;
        if (other) other.below++;
      } else {
        mine.below++;
        if (other) other.above++;
      }
    }
  }
  return counts;
}

// The scratch cells of countPaired: one entry's interval, point, own variance, rank and group.
const LOW = 0;
const HIGH = 1;
const POINT = 2;
const OWN = 3;
const RANK = 4;
const GROUP = 5;
const STRIDE = 6;
let scratch = new Float64Array(256 * STRIDE);

/** Whether two entries are statistically tied: their rank ranges overlap. */
export const rangesOverlap = (a: RankRange, b: RankRange): boolean =>
  a.best <= b.worst && b.best <= a.worst;

function checkEnds(e: IntervalEnds): IntervalEnds {
  if (!Number.isFinite(e.low) || !Number.isFinite(e.high) || e.low > e.high)
    throw new RangeError(`bad interval [${e.low}, ${e.high}]`);
  return { low: e.low, high: e.high };
}

function insertSorted(a: Float64Array, n: number, x: number): void {
  const at = upperBound(a, n, x);
  a.copyWithin(at + 1, at, n);
  a[at] = x;
}

function removeSorted(a: Float64Array, n: number, x: number): void {
  const at = lowerBound(a, n, x);
  a.copyWithin(at, at + 1, n);
}
