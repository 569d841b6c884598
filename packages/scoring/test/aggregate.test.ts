import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aggregatePanel, Exact } from "../src/index.ts";

const panel = (...s: number[]) =>
  aggregatePanel(s.map((v, i) => ({ judge: `j${i + 1}`, score: Exact.fromNumber(v)! })));

describe("judge aggregation", () => {
  it("takes the median when the spread is at most 15", () => {
    const r = panel(72, 68, 76);
    expect([r.score.toText(), r.rule, r.humanReview]).toEqual(["72", "median", false]);
    expect(panel(50, 65, 60).rule).toBe("median"); // spread exactly 15
  });
  it("discards the one judge more than 15 from both others", () => {
    const r = panel(70, 72, 95);
    expect([r.score.toText(), r.rule, r.discarded]).toEqual(["71", "outlier-discarded", ["j3"]]);
  });
  it("applies the ambiguity penalty when no single judge is the outlier", () => {
    const r = panel(50, 60, 70);
    expect([r.score.toText(), r.rule, r.humanReview, r.note]).toEqual([
      "50",
      "ambiguity-penalty",
      true,
      "Judges couldn't agree — code may be confusing or unconventional",
    ]);
  });
  it("applies the ambiguity penalty when all three disagree", () => {
    const r = panel(0, 20, 40);
    expect([r.score.toText(), r.rule]).toEqual(["10", "ambiguity-penalty"]);
  });
  it("clamps the penalty at zero", () => {
    expect(panel(0, 8, 16).score.toText()).toBe("0");
  });
  it("flags a degraded panel for review", () => {
    const two = panel(70, 80);
    expect([two.score.toText(), two.degraded, two.humanReview]).toEqual(["75", true, true]);
    const split = panel(40, 80);
    expect([split.score.toText(), split.rule]).toEqual(["50", "ambiguity-penalty"]);
    const one = panel(64);
    expect([one.score.toText(), one.rule, one.degraded]).toEqual(["64", "single-judge", true]);
  });
  it("refuses an empty panel", () => {
    expect(() => aggregatePanel([])).toThrow(RangeError);
  });
  it("does not depend on judge order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 5 }),
        (scores) => {
          const a = panel(...scores);
          const b = panel(...[...scores].reverse());
          expect(a.score.eq(b.score)).toBe(true);
          expect(a.rule).toBe(b.rule);
        },
      ),
    );
  });
  it("always lands within 0–100", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 1, maxLength: 5 }),
        (scores) => {
          const s = panel(...scores).score;
          expect(s.cmp(Exact.ZERO) >= 0 && s.cmp(Exact.HUNDRED) <= 0).toBe(true);
        },
      ),
    );
  });
});
