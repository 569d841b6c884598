import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePairing, PAIRING_METHOD, PAIRING_Z, type PairingProfile } from "@bouts/scoring";
import {
  countPaired,
  PAIRED_WINDOW,
  RankRanges,
  rangesOverlap,
  type IntervalEnds,
  type PairedCounts,
} from "../src/rank-ranges.ts";

/** The definition, by brute force: surely better = interval wholly above; surely worse = below. */
function bruteRange(all: Map<string, IntervalEnds>, id: string, rank: number) {
  const e = all.get(id)!;
  let above = 0;
  let below = 0;
  for (const [other, o] of all) {
    if (other === id) continue;
    if (o.low > e.high) above++;
    if (o.high < e.low) below++;
  }
  return { best: Math.min(1 + above, rank), worst: Math.max(all.size - below, rank) };
}

const ends = fc
  .tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 10 }))
  .map(([a, w]) => ({ low: a * 2.5, high: a * 2.5 + w }));

describe("rank ranges", () => {
  it("match the brute-force definition through any sequence of sets and removals", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant("set" as const),
              id: fc.integer({ min: 0, max: 15 }),
              e: ends,
            }),
            fc.record({ op: fc.constant("remove" as const), id: fc.integer({ min: 0, max: 15 }) }),
          ),
          { maxLength: 80 },
        ),
        (ops) => {
          const r = new RankRanges();
          const ref = new Map<string, IntervalEnds>();
          for (const o of ops) {
            if (o.op === "set") {
              r.set(`a${o.id}`, o.e);
              ref.set(`a${o.id}`, o.e);
            } else expect(r.remove(`a${o.id}`)).toBe(ref.delete(`a${o.id}`));
          }
          expect(r.size).toBe(ref.size);
          const built = RankRanges.build(ref);
          for (const id of ref.keys()) {
            expect(r.rangeOf(id, 1)).toEqual(bruteRange(ref, id, 1));
            expect(built.rangeOf(id, ref.size)).toEqual(bruteRange(ref, id, ref.size));
          }
        },
      ),
    );
  });

  it("two nearly equal entries are tied, a distant one is not", () => {
    const r = RankRanges.build([
      ["top", { low: 88, high: 95 }],
      ["a", { low: 78, high: 86 }],
      ["b", { low: 77, high: 85 }],
      ["far", { low: 40, high: 52 }],
    ]);
    expect(r.rangeOf("top", 1)).toEqual({ best: 1, worst: 1 });
    expect(r.rangeOf("a", 2)).toEqual({ best: 2, worst: 3 });
    expect(r.rangeOf("b", 3)).toEqual({ best: 2, worst: 3 });
    expect(r.rangeOf("far", 4)).toEqual({ best: 4, worst: 4 });
    expect(rangesOverlap(r.rangeOf("a", 2)!, r.rangeOf("b", 3)!)).toBe(true);
    expect(rangesOverlap(r.rangeOf("a", 2)!, r.rangeOf("far", 4)!)).toBe(false);
  });

  it("always contains the official rank, and refuses a reversed interval", () => {
    const r = RankRanges.build([
      ["x", { low: 50, high: 50 }],
      ["y", { low: 60, high: 60 }],
    ]);
    // Tiebreaks can rank x first although y's interval is wholly above it.
    expect(r.rangeOf("x", 1)).toEqual({ best: 1, worst: 2 });
    expect(() => r.set("z", { low: 3, high: 2 })).toThrow(RangeError);
    expect(r.rangeOf("nobody", 1)).toBeNull();
  });
});

type Order = "first" | "second" | "tied" | null;

/**
 * The paired comparison by its definition, read straight from the profile's text: every bit of
 * every hex digit, the sums of the formula in docs/scoring.md, no shortcut.
 */
function referenceOrder(
  aPoint: number,
  a: PairingProfile,
  bPoint: number,
  b: PairingProfile,
): Order {
  if (a.suite !== b.suite || a.strata.length !== b.strata.length) return null;
  let variance = a.ownVariance + b.ownVariance;
  for (let s = 0; s < a.strata.length; s++) {
    const x = a.strata[s]!;
    const y = b.strata[s]!;
    if (x.key !== y.key || x.n !== y.n) return null;
    let both = 0;
    let onlyA = 0;
    let onlyB = 0;
    for (let d = 0; d < x.passed.length; d++)
      for (let bit = 3; bit >= 0; bit--) {
        const p = (parseInt(x.passed[d]!, 16) >> bit) & 1;
        const q = (parseInt(y.passed[d]!, 16) >> bit) & 1;
        if (p && q) both++;
        else if (p) onlyA++;
        else if (q) onlyB++;
      }
    const mean = (both * (x.coef - y.coef) + onlyA * x.coef - onlyB * y.coef) / x.n;
    const square =
      (both * (x.coef - y.coef) ** 2 + onlyA * x.coef ** 2 + onlyB * y.coef ** 2) / x.n;
    variance += Math.max(0, x.n * (square - mean * mean));
  }
  const diff = aPoint - bPoint;
  if (diff * diff > PAIRING_Z * PAIRING_Z * variance) return diff > 0 ? "first" : "second";
  return "tied";
}

interface ReferenceEntry {
  agentId: string;
  rank: number;
  point: number;
  profile: PairingProfile | null;
}

/**
 * countPaired's rule, pair by pair for each counted entry: every entry within PAIRED_WINDOW
 * cells and ranks whose interval overlaps, compared on the raw profiles; a pair of two counted
 * entries from its upper one (the side countPaired compares it from).
 */
function referenceCounts(
  ends: ReadonlyMap<string, IntervalEnds>,
  window: readonly ReferenceEntry[],
  first: number,
  count: number,
): PairedCounts[] {
  const flip = (o: Order): Order => (o === "first" ? "second" : o === "second" ? "first" : o);
  return Array.from({ length: count }, (_, c) => {
    const counts = { above: 0, below: 0 };
    const i = first + c;
    const a = window[i];
    const mine = a && ends.get(a.agentId);
    if (!a?.profile || !mine) return counts;
    for (let j = 0; j < window.length; j++) {
      const b = window[j]!;
      const theirs = ends.get(b.agentId);
      if (j === i || !b.profile || !theirs) continue;
      if (Math.abs(j - i) > PAIRED_WINDOW || Math.abs(b.rank - a.rank) > PAIRED_WINDOW) continue;
      if (theirs.low > mine.high || theirs.high < mine.low) continue;
      const counted = j >= first && j < first + count;
      const order =
        counted && j < i
          ? flip(referenceOrder(b.point, b.profile, a.point, a.profile))
          : referenceOrder(a.point, a.profile, b.point, b.profile);
      if (order === "second") counts.above++;
      else if (order === "first") counts.below++;
    }
    return counts;
  });
}

// Suite layouts that share digests, keys or test counts in part, so that equal and unequal
// shapes both occur.
const LAYOUTS = [
  { suite: "fnv1a64:one", strata: [{ key: "static:functionality", n: 40 }] },
  {
    suite: "fnv1a64:one",
    strata: [
      { key: "static:functionality", n: 40 },
      { key: "adversarial:high", n: 3 },
    ],
  },
  { suite: "fnv1a64:one", strata: [{ key: "static:functionality", n: 39 }] },
  {
    suite: "fnv1a64:two",
    strata: [
      { key: "static:functionality", n: 70 },
      { key: "static:edge", n: 9 },
    ],
  },
];

// Spread evenly (fc.double favours extremes and near-zero widths, which would leave every
// interval a point and nothing to compare).
const hundredths = (min: number, max: number) =>
  fc.integer({ min: min * 100, max: max * 100 }).map((v) => v / 100 + v * 1e-9);

const hexOf = (digits: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${digits}}$`));

// Verdicts: mostly one of a few shared patterns (then only the own variance separates two
// entries, and many pairs are ordered), sometimes any bits.
const verdicts = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("f".repeat(18), "ffff0000ffff0000ff", "0".repeat(18)) },
  { weight: 1, arbitrary: hexOf(18) },
);

const pairedEntry = fc
  .record({
    layout: fc.option(
      fc.oneof(
        { weight: 4, arbitrary: fc.constant(0) },
        fc.integer({ min: 0, max: LAYOUTS.length - 1 }),
      ),
      { freq: 8, nil: null },
    ),
    seed: fc.array(verdicts, { minLength: 2, maxLength: 2 }),
    coefs: fc.array(fc.constantFrom(0.875, 0.5, 35 / 39, 2.5), { minLength: 2, maxLength: 2 }),
    ownVariance: fc.oneof(fc.constant(0), hundredths(0, 3)),
    point: hundredths(40, 70),
    below: hundredths(0, 12),
    above: hundredths(0, 12),
    interval: fc.integer({ min: 0, max: 9 }).map((v) => v > 0),
    gap: fc.oneof({ weight: 8, arbitrary: fc.constant(1) }, fc.integer({ min: 2, max: 30 })),
  })
  .map((e) => {
    const layout = e.layout === null ? null : LAYOUTS[e.layout]!;
    const profile: PairingProfile | null = layout && {
      method: PAIRING_METHOD,
      suite: layout.suite,
      strata: layout.strata.map((s, k) => ({
        key: s.key,
        n: s.n,
        coef: e.coefs[k]!,
        passed: e.seed[k]!.slice(0, Math.ceil(s.n / 4)),
      })),
      ownVariance: e.ownVariance,
    };
    const ends = { low: e.point - e.below, high: e.point + e.above };
    return { profile, point: e.point, ends: e.interval ? ends : null, gap: e.gap };
  });

describe("paired counts", () => {
  it("equal the definition, pair by pair, for any window, run and profiles", () => {
    let ordering = 0; // runs where a paired comparison ordered some pair: the generator's reach
    fc.assert(
      fc.property(
        fc.array(pairedEntry, { minLength: 1, maxLength: 70, size: "max" }),
        fc.integer({ min: -5, max: 75 }),
        fc.integer({ min: 0, max: 80 }),
        (entries, first, count) => {
          const ends = new Map<string, IntervalEnds>();
          let rank = 0;
          const window = entries.map((e, k) => {
            rank += e.gap;
            const agentId = `a${k}`;
            if (e.ends) ends.set(agentId, e.ends);
            return { agentId, rank, point: e.point, profile: e.profile };
          });
          const compiled = window.map((e) => ({
            ...e,
            profile: e.profile && compilePairing(e.profile),
          }));
          // Every generated profile is well formed: none is dropped by compiling.
          expect(compiled.filter((e) => e.profile).length).toBe(
            window.filter((e) => e.profile).length,
          );
          const got = countPaired(RankRanges.build(ends), compiled, first, count);
          expect(got).toEqual(referenceCounts(ends, window, first, count));
          if (got.some((c) => c.above + c.below > 0)) ordering++;
        },
      ),
      { numRuns: 400 },
    );
    expect(ordering).toBeGreaterThan(100);
  });
});
