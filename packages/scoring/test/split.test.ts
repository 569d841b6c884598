/** @module scoring/split.test Deterministic, stratified, order-independent split draws. */
import { describe, expect, it } from "vitest";
import { countPrivate, declareSplit, drawSplit, type SplitCandidate } from "../src/split.ts";

const tests: SplitCandidate[] = [
  ...Array.from({ length: 10 }, (_, i) => ({ id: `f${i}`, stratum: "static:functionality" })),
  ...Array.from({ length: 4 }, (_, i) => ({ id: `e${i}`, stratum: "static:edge" })),
  { id: "only", stratum: "static:integration" },
];

describe("drawSplit", () => {
  it("gives the same private ids for the same seed, whatever the input order", () => {
    const a = drawSplit(tests, "spring", 30);
    const b = drawSplit([...tests].reverse(), "spring", 30);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ method: "seeded", seed: "spring", privatePercent: 30 });
  });

  it("holds out the rounded share of each stratum and keeps one public test in each", () => {
    const s = drawSplit(tests, "spring", 30);
    expect(s.privateIds.filter((id) => id.startsWith("f"))).toHaveLength(3);
    expect(s.privateIds.filter((id) => id.startsWith("e"))).toHaveLength(1);
    expect(s.privateIds).not.toContain("only");
    expect(countPrivate(4, 90)).toBe(3);
    expect(countPrivate(1, 90)).toBe(0);
  });

  it("draws another assignment from another seed", () => {
    const draws = new Set(
      ["a", "b", "c", "d", "e"].map((seed) => drawSplit(tests, seed, 50).privateIds.join()),
    );
    expect(draws.size).toBeGreaterThan(1);
  });

  it("pins the stream: a published split stays reproducible", () => {
    expect(drawSplit(tests, "spring", 30).privateIds).toMatchInlineSnapshot(`
      [
        "e3",
        "f1",
        "f4",
        "f5",
      ]
    `);
  });
});

describe("declareSplit", () => {
  it("sorts and dedupes the declared ids", () => {
    expect(declareSplit(["b", "a", "b"])).toEqual({
      method: "declared",
      seed: null,
      privatePercent: null,
      privateIds: ["a", "b"],
    });
  });
});
