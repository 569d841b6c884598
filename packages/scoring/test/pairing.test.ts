/**
 * The paired comparison on shared tests: the profile a breakdown carries, the standard error
 * of a difference (tests both passed or both failed add nothing), symmetry, and hostile cases
 * (generated tests never paired, a different suite never compared, a list that lies refused).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  comparePaired,
  compilePairing,
  computeScore,
  pairedStandardError,
  parseFraction,
  type Breakdown,
  type EngineeringInput,
  type PairingProfile,
  type ScoreInterval,
  type StaticTestVerdict,
} from "../src/index.ts";
import { buildAgent, buildEngineering, cq } from "./fixtures.ts";

/** A 40-test static suite (one category) whose first `passed` tests pass, by id t00…t39. */
function suite(passedIds: (i: number) => boolean, n = 40): StaticTestVerdict[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `t${String(i).padStart(2, "0")}`,
    category: "functionality",
    passed: passedIds(i),
  }));
}

function withTests(tests: StaticTestVerdict[], over: Partial<EngineeringInput> = {}) {
  const passed = tests.filter((t) => t.passed).length;
  return buildEngineering({
    static: {
      passed,
      total: tests.length,
      categories: { functionality: { passed, total: tests.length } },
      tests,
    },
    ...over,
  });
}

function score(input: EngineeringInput | ReturnType<typeof buildAgent>) {
  const r = computeScore(input, { interval: { seed: "submission:pairing" } });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value as Breakdown & { interval: ScoreInterval; pairing: PairingProfile };
}

const point = (b: Breakdown) => parseFraction(b.final.unrounded.fraction)!.toNumber();
const compiled = (p: PairingProfile) => compilePairing(p)!;
const side = (b: Breakdown & { pairing: PairingProfile }) => ({
  point: point(b),
  profile: compiled(b.pairing),
});
const se = (a: PairingProfile, b: PairingProfile) => pairedStandardError(compiled(a), compiled(b));

describe("pairing profile", () => {
  it("is absent when the input lists no per-test verdicts", () => {
    const r = computeScore(buildEngineering());
    expect(r.ok && r.value.pairing).toBe(undefined);
  });

  it("holds one bit per shared test, in test-id order, and leaves generated tests out", () => {
    const tests = suite((i) => i !== 1 && i !== 38).reverse(); // order of the report is not the suite's
    const b = score(withTests(tests));
    const [stat, critical] = b.pairing.strata;
    expect(stat).toMatchObject({ key: "static:functionality", n: 40 });
    expect(stat!.passed).toBe("bffffffffd"); // t01 and t38 fail
    expect(stat!.coef).toBeCloseTo(35 / 40, 12);
    // The fixture's one pre-built critical test is shared; its generated high test is not.
    expect(critical).toMatchObject({ key: "adversarial:critical", n: 1, passed: "8" });
    expect(b.pairing.strata.map((s) => s.key)).not.toContain("adversarial:high");
    expect(b.pairing.suite).toMatch(/^fnv1a64:[0-9a-f]{16}$/);
  });

  it("refuses a test list that contradicts the counts", () => {
    const tests = suite(() => true);
    const lying = withTests(tests);
    lying.static.passed = 39;
    lying.static.categories = { functionality: { passed: 39, total: 40 } };
    const r = computeScore(lying);
    expect(!r.ok && r.error).toMatchObject({ field: "static.tests" });

    const short = withTests(tests);
    short.static.tests = tests.slice(1);
    expect(computeScore(short).ok).toBe(false);

    const dup = withTests(tests);
    dup.static.tests = [...tests.slice(1), { ...tests[1]! }];
    const d = computeScore(dup);
    expect(!d.ok && d.error).toMatchObject({ field: "static.tests.39.id" });
  });

  it("scales the Objective's tests by its weight in an agent run, and adds the agent panels", () => {
    const objective = withTests(suite((i) => i < 30));
    const agent = score(buildAgent({ objective }));
    const engineering = score(objective);
    const weight = agent.components.find((c) => c.key === "objective")!.weight;
    expect(agent.pairing.strata[0]!.coef).toBeCloseTo(
      (engineering.pairing.strata[0]!.coef * weight) / 100,
      12,
    );
    expect(agent.pairing.suite).toBe(engineering.pairing.suite);
  });
});

describe("paired comparison", () => {
  it("separates two scores whose intervals overlap when one passed every test the other did and more", () => {
    const a = score(withTests(suite((i) => i < 36)));
    const b = score(withTests(suite((i) => i < 28)));
    // The intervals overlap: compared alone, the two are not told apart …
    expect(a.interval.low.value).toBeLessThan(b.interval.high.value);
    // … but on the same 40 tests, only the 8 that b fails and a passes differ.
    expect(comparePaired(side(a), side(b))).toBe("first");
    expect(comparePaired(side(b), side(a))).toBe("second");
  });

  it("keeps two scores tied when they differ on tests both ways", () => {
    // 36 vs 32 passes, but 8 tests only a passes and 4 only b: too few to tell apart.
    const a = score(withTests(suite((i) => i < 36)));
    const b = score(withTests(suite((i) => i < 26 || (i >= 36 && i < 40) || (i >= 26 && i < 28))));
    expect(comparePaired(side(a), side(b))).toBe("tied");
  });

  it("adds nothing for tests both passed or both failed", () => {
    const tests = suite((i) => i % 3 !== 0);
    const a = score(withTests(tests));
    expect(se(a.pairing, a.pairing)).toBe(0);
    // Identical verdicts, panels in agreement: any difference at all is a real one.
    expect(comparePaired(side(a), { ...side(a), point: side(a).point - 0.01 })).toBe("first");
  });

  it("counts the judges' disagreement as each side's own variance", () => {
    const tests = suite(() => true);
    const calm = score(withTests(tests));
    const split = score(
      withTests(tests, {
        codeQuality: { judges: [cq("j1", 40), cq("j2", 70), cq("j3", 100)] },
      }),
    );
    expect(calm.pairing.ownVariance).toBe(0);
    expect(split.pairing.ownVariance).toBeGreaterThan(0);
    expect(se(calm.pairing, split.pairing)).toBeCloseTo(Math.sqrt(split.pairing.ownVariance), 12);
  });

  it("never compares two suites", () => {
    const a = score(withTests(suite((i) => i < 36)));
    const other = suite((i) => i < 28).map((t, i) => (i === 0 ? { ...t, id: "renamed" } : t));
    const b = score(withTests(other));
    expect(b.pairing.suite).not.toBe(a.pairing.suite);
    expect(comparePaired(side(a), side(b))).toBe(null);
    // A profile that claims the other's suite but lists another number of tests is refused too.
    const forged = { ...b.pairing, suite: a.pairing.suite, strata: b.pairing.strata.slice(1) };
    expect(se(a.pairing, forged)).toBe(null);
    // Bits that do not fit the test count, or another method, never compile.
    expect(
      compilePairing({ ...a.pairing, strata: [{ ...a.pairing.strata[0]!, passed: "ff" }] }),
    ).toBe(null);
    expect(compilePairing({ ...a.pairing, method: "other" as "paired-normal/v1" })).toBe(null);
  });

  it("does not pair generated tests, even when two submissions' generated ids agree", () => {
    const generated = (passed: boolean) => ({
      tests: [
        { id: "a1", severity: "critical" as const, origin: "prebuilt" as const, passed: true },
        { id: "gen-1", severity: "high" as const, origin: "generated" as const, passed },
        { id: "gen-2", severity: "high" as const, origin: "generated" as const, passed: !passed },
      ],
    });
    const tests = suite(() => true);
    const a = score(withTests(tests, { adversarial: generated(true) }));
    const b = score(withTests(tests, { adversarial: generated(false) }));
    expect(a.pairing.suite).toBe(b.pairing.suite);
    expect(a.pairing.ownVariance).toBeGreaterThan(0);
    expect(a.pairing.strata.map((s) => s.key)).toEqual([
      "static:functionality",
      "adversarial:critical",
    ]);
  });

  it("is symmetric, never negative, and the same for the same inputs", () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (va, vb) => {
          fc.pre(va.some(Boolean) && vb.some(Boolean));
          const a = score(withTests(suite((i) => va[i]!)));
          const b = score(withTests(suite((i) => vb[i]!)));
          const ab_se = se(a.pairing, b.pairing)!;
          expect(ab_se).toBeGreaterThanOrEqual(0);
          expect(se(b.pairing, a.pairing)).toBe(ab_se);
          const ab = comparePaired(side(a), side(b));
          const ba = comparePaired(side(b), side(a));
          expect(ba).toBe(ab === "first" ? "second" : ab === "second" ? "first" : "tied");
          expect(score(withTests(suite((i) => va[i]!))).pairing).toEqual(a.pairing);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("answers as the definition does: tied unless the difference exceeds 1.96 paired SEs", () => {
    // comparePaired skips the test count when the difference is within the sides' own variance;
    // that shortcut must never change an answer.
    const profile = (hex: string, ownVariance: number): PairingProfile => ({
      method: "paired-normal/v1",
      suite: "fnv1a64:prop",
      strata: [{ key: "static:functionality", n: 16, coef: 35 / 16, passed: hex }],
      ownVariance,
    });
    const hex4 = fc.stringMatching(/^[0-9a-f]{4}$/);
    fc.assert(
      fc.property(
        hex4,
        hex4,
        fc.double({ min: 0, max: 9, noNaN: true }),
        fc.double({ min: 0, max: 9, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (ha, hb, va, vb, pa, pb) => {
          const a = compiled(profile(ha, va));
          const b = compiled(profile(hb, vb));
          const z = 1.96 * pairedStandardError(a, b)!;
          const want = (pa - pb) ** 2 > z * z ? (pa > pb ? "first" : "second") : "tied";
          expect(comparePaired({ point: pa, profile: a }, { point: pb, profile: b })).toBe(want);
        },
      ),
      { numRuns: 500 },
    );
  });
});
