/**
 * The 95 % score interval: properties (contains the point, narrows as tests are added,
 * deterministic), exactness through the engine's formula, and hostile inputs an agent controls.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  computeEngineering,
  computeInterval,
  computeScore,
  createPrng,
  Exact,
  parseFraction,
  type AgentInput,
  type Breakdown,
  type EngineeringInput,
  type ScoreInterval,
  type Severity,
} from "../src/index.ts";
import { replicateArithmetic } from "../src/interval.ts";
import { buildAgent, buildEngineering, cq, dj, seedEngineering } from "./fixtures.ts";

const SEED = "submission:01JTEST";

function scored(input: EngineeringInput | AgentInput, seed = SEED, replicates?: number) {
  const r = computeScore(input, {
    interval: { seed, ...(replicates === undefined ? {} : { replicates }) },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value as Breakdown & { interval: ScoreInterval };
}

const x = (v: { fraction: string }): Exact => parseFraction(v.fraction)!;
const width = (iv: ScoreInterval): Exact => x(iv.high).sub(x(iv.low));

const severity = fc.constantFrom<Severity>("critical", "high", "medium", "low");
const judgeScore = fc.integer({ min: 0, max: 100 });

/** Random, valid engineering inputs: categories, weighted adversarial tests, panels, findings. */
const engineeringInput: fc.Arbitrary<EngineeringInput> = fc
  .record({
    cats: fc.array(
      fc
        .record({
          total: fc.integer({ min: 1, max: 30 }),
          frac: fc.double({ min: 0, max: 1, noNaN: true }),
        })
        .map(({ total, frac }) => ({ total, passed: Math.round(total * frac) })),
      { minLength: 1, maxLength: 3 },
    ),
    adv: fc.array(fc.record({ severity, passed: fc.boolean() }), { minLength: 1, maxLength: 12 }),
    cqJudges: fc.array(judgeScore, { minLength: 1, maxLength: 4 }),
    delJudges: fc.array(judgeScore, { minLength: 1, maxLength: 3 }),
    missing: fc.boolean(),
    criticals: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ cats, adv, cqJudges, delJudges, missing, criticals }) => {
    const names = ["functionality", "edge", "integration"] as const;
    const categories = Object.fromEntries(cats.map((c, i) => [names[i]!, c]));
    return buildEngineering({
      static: {
        passed: cats.reduce((s, c) => s + c.passed, 0),
        total: cats.reduce((s, c) => s + c.total, 0),
        categories,
      },
      adversarial: {
        tests: adv.map((t, i) => ({
          id: `a${i}`,
          severity: t.severity,
          origin: i % 2 ? "generated" : "prebuilt",
          passed: t.passed,
        })),
      },
      codeQuality: { judges: cqJudges.map((s, i) => cq(`j${i}`, s)) },
      deliverables: {
        items: [
          {
            name: "NOTES.md",
            status: "submitted",
            judges: delJudges.map((s, i) => dj(`j${i}`, s)),
          },
          ...(missing ? [{ name: "ARCHITECTURE.md", status: "missing" as const }] : []),
        ],
      },
      security: {
        findings: Array.from({ length: criticals }, () => ({
          cwe: "CWE-89",
          severity: "critical" as const,
        })),
      },
    });
  });

/** Every static and adversarial test repeated `k` times: the same rates on a larger suite. */
function repeated(input: EngineeringInput, k: number): EngineeringInput {
  const cats = input.static.categories ?? {};
  return {
    ...input,
    static: {
      passed: input.static.passed * k,
      total: input.static.total * k,
      categories: Object.fromEntries(
        Object.entries(cats).map(([n, c]) => [n, { passed: c.passed * k, total: c.total * k }]),
      ),
    },
    adversarial: {
      tests: Array.from({ length: k }, (_, r) =>
        input.adversarial.tests.map((t) => ({ ...t, id: `${t.id}-${r}` })),
      ).flat(),
    },
  };
}

/** Judges who agree: the panel adds no variation, only the tests do. */
const agreeingJudges = (input: EngineeringInput): EngineeringInput => ({
  ...input,
  codeQuality: { judges: [cq("j1", 70), cq("j2", 70), cq("j3", 70)] },
  deliverables: {
    items: [{ name: "NOTES.md", status: "submitted", judges: [dj("j1", 60), dj("j2", 60)] }],
  },
});

describe("score interval — properties", () => {
  it("always contains the point estimate (engineering and agent)", () => {
    fc.assert(
      fc.property(engineeringInput, fc.string({ minLength: 1, maxLength: 20 }), (input, seed) => {
        const b = scored(input, seed);
        const point = x(b.final.unrounded);
        expect(x(b.interval.low).cmp(point)).toBeLessThanOrEqual(0);
        expect(x(b.interval.high).cmp(point)).toBeGreaterThanOrEqual(0);
        expect(x(b.interval.low).cmp(Exact.ZERO)).toBeGreaterThanOrEqual(0);
        expect(x(b.interval.high).cmp(Exact.HUNDRED)).toBeLessThanOrEqual(0);
        const a = scored(buildAgent({ objective: input }), seed);
        expect(x(a.interval.low).cmp(x(a.final.unrounded))).toBeLessThanOrEqual(0);
        expect(x(a.interval.high).cmp(x(a.final.unrounded))).toBeGreaterThanOrEqual(0);
        const obj = a.objective!.interval!;
        expect(x(obj.low).cmp(x(a.objective!.final.unrounded))).toBeLessThanOrEqual(0);
        expect(x(obj.high).cmp(x(a.objective!.final.unrounded))).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 60 },
    );
  });

  it("narrows as tests are added: the same pass rates on a suite four times larger", () => {
    fc.assert(
      fc.property(engineeringInput, (raw) => {
        const input = agreeingJudges(raw);
        const small = scored(input);
        const large = scored(repeated(input, 4));
        expect(x(large.final.unrounded).eq(x(small.final.unrounded))).toBe(true);
        expect(width(large.interval).cmp(width(small.interval))).toBeLessThanOrEqual(0);
      }),
      { numRuns: 60 },
    );
  });

  it("narrows strictly on a plain suite, and roughly as 1/√n", () => {
    const at = (k: number) =>
      scored(repeated(agreeingJudges(seedEngineering()), k), SEED, 4000).interval;
    const w1 = width(at(1)).toNumber();
    const w4 = width(at(4)).toNumber();
    const w16 = width(at(16)).toNumber();
    expect(w4).toBeLessThan(w1);
    expect(w16).toBeLessThan(w4);
    expect(w4 / w1).toBeGreaterThan(0.35);
    expect(w4 / w1).toBeLessThan(0.65);
  });

  it("identical input and seed give identical intervals; the JSON round trip changes nothing", () => {
    fc.assert(
      fc.property(engineeringInput, fc.string({ minLength: 1, maxLength: 20 }), (input, seed) => {
        const a = scored(input, seed);
        const b = scored(JSON.parse(JSON.stringify(input)) as EngineeringInput, seed);
        expect(b.interval).toEqual(a.interval);
        // And from the stored breakdown alone.
        const again = computeInterval(JSON.parse(JSON.stringify(a)) as Breakdown, { seed });
        expect(again.ok && again.value.interval).toEqual(a.interval);
      }),
      { numRuns: 40 },
    );
  });
});

describe("score interval — method", () => {
  it("the seed example: a published, reproducible interval", () => {
    const b = scored(seedEngineering());
    expect(b.final.unrounded.text).toBe("82.075");
    expect(b.interval).toMatchObject({
      level: 95,
      method: "stratified-bootstrap/v1",
      prng: "xoshiro128**",
      seed: SEED,
      replicates: 1000,
      widenedToPoint: false,
    });
    expect(b.interval.resampled).toEqual([
      "static: 20 tests in 3 categories, resampled within each",
      "adversarial: 10 tests, resampled within each severity (weights kept)",
      "codeQuality: 3 judges, resampled",
    ]);
    expect(x(b.interval.low).cmp(x(b.final.unrounded))).toBeLessThan(0);
    expect(x(b.interval.high).cmp(x(b.final.unrounded))).toBeGreaterThan(0);
    // Pinned so any change to the PRNG, the seed derivation or the method shows up here.
    expect([b.interval.low.text, b.interval.high.text]).toMatchInlineSnapshot(`
      [
        "75.825",
        "88.325",
      ]
    `);
  });

  it("another seed draws another (close) interval", () => {
    const a = scored(seedEngineering(), "submission:A").interval;
    const b = scored(seedEngineering(), "submission:B").interval;
    expect([a.low.text, a.high.text]).not.toEqual([b.low.text, b.high.text]);
    expect(Math.abs(a.low.value - b.low.value)).toBeLessThan(3);
  });

  it("ends are scores the engine's own formula gives for some resampled suite", () => {
    // Only the static tests vary (one category): each end must be computeEngineering's final
    // for some passed count k — exact, not a floating-point approximation.
    const input = agreeingJudges(buildEngineering({ static: { passed: 13, total: 20 } }));
    const b = scored(input);
    const finals = Array.from({ length: 21 }, (_, k) => {
      const r = computeEngineering({ ...input, static: { passed: k, total: 20 } });
      if (!r.ok) throw new Error("unscorable");
      return r.value.final.unrounded.fraction;
    });
    expect(finals).toContain(b.interval.low.fraction);
    expect(finals).toContain(b.interval.high.fraction);
    expect(b.interval.low.fraction).not.toBe(b.interval.high.fraction);
  });

  it("stays exact when the common denominator outgrows doubles (the bigint path)", () => {
    // Judges in agreement on 12-decimal scores push the denominator past 2⁵³; only the
    // Objective's static tests vary, so each end must be computeAgent's final for some k.
    const objective = agreeingJudges(buildEngineering({ static: { passed: 61, total: 97 } }));
    objective.deliverables.items = Array.from({ length: 7 }, (_, i) => ({
      name: `D${i}.md`,
      status: "submitted" as const,
      judges: [dj("j1", 60.000000000003 + i), dj("j2", 60.000000000003 + i)],
    }));
    // Weight total 13 halves: critical 6 + high 4 + medium 2 + low 1.
    objective.adversarial.tests = (["critical", "high", "medium", "low"] as const).map((s, i) => ({
      id: `t${i}`,
      severity: s,
      origin: "prebuilt" as const,
      passed: true,
    }));
    const judges = (s: number) => ({
      judges: [
        { judge: "a", score: s },
        { judge: "b", score: s },
        { judge: "c", score: s },
      ],
    });
    const input = buildAgent({
      objective,
      process: judges(61.123456789012),
      strategy: judges(72.987654321098),
      recovery: judges(55.000000000007),
    });
    const b = scored(input);
    const finals = Array.from({ length: 98 }, (_, k) => {
      const r = computeScore({
        ...input,
        objective: { ...objective, static: { passed: k, total: 97 } },
      });
      if (!r.ok) throw new Error("unscorable");
      return r.value.final.unrounded.fraction;
    });
    expect(replicateArithmetic(b)).toBe("bigint");
    expect(replicateArithmetic(scored(seedEngineering()))).toBe("double");
    expect(finals).toContain(b.interval.low.fraction);
    expect(finals).toContain(b.interval.high.fraction);
    expect(b.interval.low.fraction).not.toBe(b.interval.high.fraction);
  });

  it("the critical cap applies inside every replicate", () => {
    const input = buildEngineering({
      static: { passed: 18, total: 20 },
      security: { findings: [{ cwe: "CWE-89", severity: "critical" }] },
    });
    const b = scored(input);
    expect(b.final.unrounded.text).toBe("75");
    expect(b.interval.high.text).toBe("75");
  });

  it("components without variation contribute none: a perfect run has a zero-width interval", () => {
    const b = scored(
      buildEngineering({
        deliverables: { items: [{ name: "NOTES.md", status: "missing" }] },
      }),
    );
    expect(b.interval.low).toEqual(b.final.unrounded);
    expect(b.interval.high).toEqual(b.final.unrounded);
    expect(b.interval.resampled).toEqual([]);
    expect(b.interval.fixed).toContain("deliverables:NOTES.md (missing: 0, no variation)");
  });

  it("judge disagreement alone widens the interval", () => {
    const agree = scored(agreeingJudges(buildEngineering())).interval;
    const disagree = scored(
      buildEngineering({
        codeQuality: { judges: [cq("j1", 50), cq("j2", 62), cq("j3", 90)] },
      }),
    ).interval;
    expect(width(agree).eq(Exact.ZERO)).toBe(true);
    expect(width(disagree).cmp(Exact.ZERO)).toBeGreaterThan(0);
  });

  it("refuses a missing seed or a silly replicate count, naming the field", () => {
    const b = scored(seedEngineering());
    expect(computeInterval(b, { seed: "" })).toMatchObject({
      ok: false,
      error: { reason: "invalid-input", field: "interval.seed" },
    });
    expect(computeInterval(b, { seed: "s", replicates: 5 })).toMatchObject({
      ok: false,
      error: { field: "interval.replicates" },
    });
  });

  it("the PRNG is xoshiro128** seeded by FNV-1a + SplitMix32: a pinned stream", () => {
    const rng = createPrng("bouts");
    expect(Array.from({ length: 4 }, () => rng.next())).toMatchInlineSnapshot(`
      [
        3775631203,
        191331647,
        834753228,
        2319686110,
      ]
    `);
    const r = createPrng("bouts");
    for (let i = 0; i < 1000; i++) {
      const v = r.below(7);
      expect(v >= 0 && v < 7 && Number.isInteger(v)).toBe(true);
    }
  });
});

describe("score interval — hostile: what an agent submits cannot move its own width", () => {
  const offsets = (b: Breakdown & { interval: ScoreInterval }) => {
    const p = x(b.final.unrounded);
    return [p.sub(x(b.interval.low)).toFraction(), x(b.interval.high).sub(p).toFraction()];
  };

  it("confidence claims shift the score by their calibration points, never the width", () => {
    const base = buildAgent();
    const none = scored({ ...base, calibration: { claims: [] } });
    const many = scored({
      ...base,
      calibration: {
        claims: Array.from({ length: 40 }, (_, i) => ({
          id: `c${i}`,
          confidence: 0.99,
          correct: true,
        })),
      },
    });
    expect(many.final.unrounded.fraction).not.toBe(none.final.unrounded.fraction);
    expect(offsets(many)).toEqual(offsets(none));
  });

  it("the trace's efficiency figures and integrity evidence do not enter the resampling", () => {
    const base = buildAgent();
    const a = scored(base);
    const b = scored({
      ...base,
      efficiency: {
        totalActions: 500,
        unproductiveActions: 0,
        retryChurnActions: 0,
        toolMisuseActions: 0,
        tokensUsed: 10,
        tokenBudget: 100_000,
      },
      integrity: [],
    });
    expect(offsets(b)).toEqual(offsets(a));
    expect(b.interval.resampled).toEqual(a.interval.resampled);
  });

  it("the seed, not the submission's content, drives the draw: same content, same seed, same interval", () => {
    const a = scored(seedEngineering(), "submission:X");
    const renamed = seedEngineering();
    renamed.adversarial.tests = renamed.adversarial.tests.map((t) => ({ ...t, id: `${t.id}-z` }));
    expect(scored(renamed, "submission:X").interval).toEqual(a.interval);
  });
});
