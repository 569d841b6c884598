import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RankRanges, rangesOverlap, type IntervalEnds } from "./rank-ranges.ts";

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
