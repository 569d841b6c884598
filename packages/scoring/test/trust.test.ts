/**
 * Provenance and trust caps (docs/scoring.md, "Provenance and trust caps"): the input's `trust`
 * checked field by field (hostile values refused, naming the field), each cap applied exactly
 * after the panel or the formula, provenance carried into the breakdown and its public view,
 * the interval and the pairing variance capped like the score, and an input without `trust`
 * scored exactly as before.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AGENT_VERSION,
  AGENT_VERSION_BEFORE_TRUST,
  computeAgent,
  computeScore,
  CROSS_CHECKED_AGENT_EXAMPLE,
  EDGE_EXAMPLES,
  Exact,
  parseFraction,
  PRIVATE_CITATION,
  SEED_AGENT_EXAMPLE,
  toPublicBreakdown,
  TRUST_BASIS_MAX,
  TRUST_CAPS,
  type AgentInput,
  type AgentTrust,
  type Breakdown,
  type ComponentTrust,
  type ScoreInterval,
  type ScoringError,
} from "../src/index.ts";
import { panelVariance } from "../src/pairing-strata.ts";
import { buildAgent, buildEngineering } from "./fixtures.ts";

const score = (input: AgentInput): Breakdown => {
  const r = computeAgent(input);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};
const failure = (input: AgentInput): ScoringError => {
  const r = computeAgent(input);
  if (r.ok) throw new Error("expected a refusal");
  return r.error;
};
const x = (v: { fraction: string }): Exact => parseFraction(v.fraction)!;
const component = (b: Breakdown, key: string) => b.components.find((c) => c.key === key)!;
const panel = (...scores: number[]) => ({
  judges: scores.map((s, i) => ({ judge: `j${i}`, score: s })),
});

const open = (provenance: ComponentTrust["provenance"] = "cross-checked"): ComponentTrust => ({
  provenance,
  cap: null,
  basis: "checked against the platform's records",
});
const capped = (cap: number): ComponentTrust => ({
  provenance: "self-reported",
  cap,
  basis: "contradicted by the runner's report",
});
/** A trust with nothing capped, with overrides. */
const trustWith = (over: Partial<AgentTrust> = {}): AgentTrust => ({
  process: open(),
  strategy: open(),
  recovery: open(),
  efficiency: open(),
  integrity: { provenance: "cross-checked", basis: "runner evidence observed" },
  calibration: { provenance: "observed", basis: "resolved against the runner's verdicts" },
  ...over,
});
/** An input whose trust is `trust` as given, whatever its type. */
const withRawTrust = (trust: unknown): AgentInput => buildAgent({ trust: trust as AgentTrust });

describe("trust is checked like the rest of the input", () => {
  const refused = (trust: unknown) => failure(withRawTrust(trust));
  const bad = (cap: unknown) => ({ ...capped(25), cap });

  it("refuses a cap outside 0–100, naming the field", () => {
    expect(refused(trustWith({ process: bad(101) as ComponentTrust }))).toMatchObject({
      reason: "invalid-input",
      field: "trust.process.cap",
      detail: "must be within 0–100, got 101",
    });
    expect(refused(trustWith({ efficiency: bad(-1) as ComponentTrust }))).toMatchObject({
      field: "trust.efficiency.cap",
      detail: "must be within 0–100, got -1",
    });
  });

  it("refuses a cap that is NaN, infinite, a string or missing", () => {
    for (const cap of [NaN, Infinity, "25", undefined, true])
      expect(refused(trustWith({ strategy: bad(cap) as ComponentTrust }))).toMatchObject({
        reason: "invalid-input",
        field: "trust.strategy.cap",
      });
    expect(refused(trustWith({ strategy: bad(NaN) as ComponentTrust })).detail).toContain("NaN");
  });

  it("refuses a provenance outside the three, for components, adjustments and evidence", () => {
    const trusted = "trusted" as ComponentTrust["provenance"];
    expect(refused(trustWith({ recovery: { ...open(), provenance: trusted } }))).toMatchObject({
      field: "trust.recovery.provenance",
    });
    expect(refused(trustWith({ integrity: { provenance: trusted, basis: "b" } }))).toMatchObject({
      field: "trust.integrity.provenance",
    });
    expect(
      failure(
        buildAgent({
          integrity: [{ trigger: "network-attempt", citation: "c", provenance: trusted }],
        }),
      ),
    ).toMatchObject({ field: "integrity[0].provenance" });
    expect(
      failure(
        buildAgent({
          exploits: [{ trigger: "test-tampering", citation: "c", provenance: trusted }],
        }),
      ),
    ).toMatchObject({ field: "exploits[0].provenance" });
    expect(
      failure(
        buildAgent({
          efficiency: { ...SEED_AGENT_EXAMPLE.efficiency!, tokensProvenance: trusted },
        }),
      ),
    ).toMatchObject({ field: "efficiency.tokensProvenance" });
  });

  it("refuses a basis of 10 000 characters, an empty one or a missing one", () => {
    const long = "x".repeat(10_000);
    expect(refused(trustWith({ efficiency: { ...open(), basis: long } }))).toMatchObject({
      field: "trust.efficiency.basis",
      detail: `must be at most ${TRUST_BASIS_MAX} characters`,
    });
    expect(
      refused(trustWith({ calibration: { provenance: "observed", basis: long } })),
    ).toMatchObject({ field: "trust.calibration.basis" });
    expect(refused(trustWith({ process: { ...open(), basis: "" } }))).toMatchObject({
      field: "trust.process.basis",
    });
    // At the bound it is accepted, whole.
    const atBound = "y".repeat(TRUST_BASIS_MAX);
    expect(
      component(
        score(withRawTrust(trustWith({ process: { ...open(), basis: atBound } }))),
        "process",
      ).provenance?.basis,
    ).toBe(atBound);
  });

  it("refuses half a trust, null or a non-object, never reading it as absent", () => {
    const { efficiency: _, ...withoutEfficiency } = trustWith();
    expect(refused(withoutEfficiency)).toMatchObject({ field: "trust.efficiency" });
    expect(refused(null)).toMatchObject({ field: "trust" });
    expect(refused("observed")).toMatchObject({ field: "trust" });
    expect(refused([])).toMatchObject({ field: "trust" });
  });
});

describe("a cap applies after the panel or the formula, exactly", () => {
  it("scores a panel of 100s capped at 25 exactly 25, and shows the min in the formula", () => {
    const b = score(
      buildAgent({ process: panel(100, 100, 100), trust: trustWith({ process: capped(25) }) }),
    );
    const process = component(b, "process");
    expect(process.score).toEqual({ value: 25, text: "25", fraction: "25" });
    expect(process.formula).toBe(
      "spread 0 ≤ 15 → median(100, 100, 100) = 100; min(100, cap 25) = 25",
    );
    expect(process.provenance).toEqual({
      kind: "self-reported",
      basis: "contradicted by the runner's report",
      cap: { max: 25, uncapped: { value: 100, text: "100", fraction: "100" } },
    });
    // The details still show how the uncapped score came about.
    expect(process.details).toMatchObject({ rule: "median" });
    expect(b.math).toContain(
      "Process     spread 0 ≤ 15 → median(100, 100, 100) = 100; min(100, cap 25) = 25",
    );
  });

  /** final(uncapped) − final(capped), exactly, for one component capped at `cap`. */
  function finalDrop(
    input: AgentInput,
    key: "process" | "strategy" | "recovery" | "efficiency",
    cap: number,
  ) {
    const free = score({ ...input, trust: trustWith() });
    const held = score({ ...input, trust: trustWith({ [key]: capped(cap) }) });
    const c = component(held, key);
    return { drop: x(free.final.unrounded).sub(x(held.final.unrounded)), c, free, held };
  }

  it("moves the final by exactly weight × (uncapped − cap) / 100: blacksite process 72 → 25 is 9.4", () => {
    const { drop, c } = finalDrop(buildAgent({ process: panel(72, 72, 72) }), "process", 25);
    expect(c.weight).toBe(20);
    expect(drop.toFraction()).toBe("47/5");
    expect(drop.toText()).toBe("9.4");
  });

  it("moves it exactly when the uncapped score is a non-terminating decimal", () => {
    // [50, 60, 71]: no single outlier → mean 60.333… − 10 = 50.333… (151/3).
    const { drop, c } = finalDrop(buildAgent({ recovery: panel(50, 60, 71) }), "recovery", 25);
    expect(c.provenance?.cap?.uncapped.fraction).toBe("151/3");
    expect(c.formula).toContain("min(50.333333…, cap 25) = 25");
    // 20 × (151/3 − 25) / 100 = 76/15 = 5.0666…
    expect(drop.toFraction()).toBe("76/15");
    expect(
      drop.eq(
        Exact.of(20)
          .mul(Exact.of(151, 3).sub(Exact.of(25)))
          .div(Exact.HUNDRED),
      ),
    ).toBe(true);
  });

  it("moves it exactly in other families and for efficiency's formula", () => {
    const fog = finalDrop(
      buildAgent({ family: "fog-of-war", strategy: panel(72, 72, 72) }),
      "strategy",
      25,
    );
    expect(fog.c.weight).toBe(25);
    expect(fog.drop.toFraction()).toBe("47/4"); // 25 × 47 / 100 = 11.75
    const eff = finalDrop(buildAgent({ family: "default" }), "efficiency", TRUST_CAPS.unchecked);
    expect(eff.c.formula).toBe(
      "100 − 40×0.15 − 20×0.05 − 20×0.025 − 20×0.1 = 90.5; min(90.5, cap 50) = 50",
    );
    expect(eff.drop.toFraction()).toBe("81/20"); // 10 × 40.5 / 100 = 4.05
    // [70, 72, 95]: 95 is the outlier → mean(70, 72) = 71; 20 × (71 − 25) / 100 = 9.2.
    const versus = finalDrop(
      buildAgent({ family: "versus-arena", recovery: panel(70, 72, 95) }),
      "recovery",
      TRUST_CAPS.contradicted,
    );
    expect(versus.c.weight).toBe(20);
    expect(versus.drop.toFraction()).toBe("46/5");
  });

  it("caps at 0 and at 100: 0 takes everything, 100 takes nothing but still shows the min", () => {
    const zero = finalDrop(buildAgent(), "process", 0);
    expect(zero.c.score.text).toBe("0");
    expect(zero.c.formula).toMatch(/; min\(80, cap 0\) = 0$/);
    expect(zero.drop.toFraction()).toBe("16"); // 20 × 80 / 100
    const hundred = finalDrop(buildAgent({ process: panel(100, 100, 100) }), "process", 100);
    expect(hundred.c.score.text).toBe("100");
    expect(hundred.c.formula).toMatch(/; min\(100, cap 100\) = 100$/);
    expect(hundred.c.provenance?.cap).toEqual({
      max: 100,
      uncapped: { value: 100, text: "100", fraction: "100" },
    });
    expect(hundred.drop.eq(Exact.ZERO)).toBe(true);
  });

  it("leaves a score under its cap as it was; a null cap adds no min", () => {
    const under = finalDrop(buildAgent(), "recovery", 90);
    expect(under.c.score.text).toBe("66");
    expect(under.drop.eq(Exact.ZERO)).toBe(true);
    const free = component(score(buildAgent({ trust: trustWith() })), "recovery");
    expect(free.formula).toBe("spread 7 ≤ 15 → median(64, 66, 71) = 66");
    expect(free.provenance).toEqual({
      kind: "cross-checked",
      basis: "checked against the platform's records",
      cap: null,
    });
  });

  it("accepts a cap that is not a whole number, exactly", () => {
    const c = component(
      score(buildAgent({ trust: trustWith({ process: capped(33.3) }) })),
      "process",
    );
    expect(c.score.fraction).toBe("333/10");
    expect(c.formula).toMatch(/; min\(80, cap 33\.3\) = 33\.3$/);
  });

  it("never raises a score: capped ≤ uncapped for any panel and cap", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 100 }),
        (judges, cap) => {
          const free = score(buildAgent({ strategy: panel(...judges), trust: trustWith() }));
          const held = score(
            buildAgent({ strategy: panel(...judges), trust: trustWith({ strategy: capped(cap) }) }),
          );
          const c = component(held, "strategy");
          const uncapped = x(component(free, "strategy").score);
          expect(x(c.score).eq(uncapped.cmp(Exact.of(cap)) > 0 ? Exact.of(cap) : uncapped)).toBe(
            true,
          );
          expect(x(held.final.unrounded).cmp(x(free.final.unrounded))).toBeLessThanOrEqual(0);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("provenance in the breakdown", () => {
  const b = score(CROSS_CHECKED_AGENT_EXAMPLE);

  it("says Objective is observed, and what every other component rests on", () => {
    expect(
      b.components.map((c) => [c.key, c.provenance?.kind, c.provenance?.cap?.max ?? null]),
    ).toEqual([
      ["objective", "observed", null],
      ["process", "self-reported", 25],
      ["strategy", "cross-checked", null],
      ["recovery", "self-reported", 50],
      ["efficiency", "cross-checked", null],
    ]);
  });

  it("gives integrity and calibration their provenance, exploits none", () => {
    expect(b.adjustments.map((a) => [a.key, a.provenance?.kind ?? null])).toEqual([
      ["integrity", "cross-checked"],
      ["exploits", null],
      ["calibration", "observed"],
    ]);
  });

  it("carries each evidence line's provenance and the tokens' into the details", () => {
    expect(b.adjustments[0]!.evidence.map((e) => [e.item, e.points, e.provenance])).toEqual([
      ["known-failure-disclosed", 5, "cross-checked"],
      ["network-attempt (×3)", -5, "observed"],
      ["trace-contradicted", -15, "observed"],
    ]);
    expect(component(b, "efficiency").details).toMatchObject({ tokensProvenance: "observed" });
  });

  it("computes the documented worked example (docs/scoring.md)", () => {
    expect(b.weightedSum.text).toBe("63.55875");
    expect(b.adjustments.map((a) => a.points.text)).toEqual(["-15", "0", "-1"]);
    expect(b.final).toEqual({
      unrounded: { value: 47.55875, text: "47.55875", fraction: "38047/800" },
      rounded: 48,
    });
    expect(b.profileVersion).toBe(AGENT_VERSION);
  });

  it("gives a merged evidence line the strongest provenance its observations state", () => {
    const merged = score(
      buildAgent({
        integrity: [
          { trigger: "network-attempt", citation: "trace seq 4", provenance: "self-reported" },
          { trigger: "network-attempt", citation: "sandbox blocked 1", provenance: "observed" },
          { trigger: "network-attempt", citation: "no provenance stated" },
          { trigger: "limitation-disclosed", citation: "NOTES.md", provenance: "self-reported" },
          { trigger: "hidden-test-access", citation: "unstated" },
        ],
      }),
    );
    expect(merged.adjustments[0]!.evidence).toEqual([
      {
        item: "network-attempt (×3)",
        points: -5,
        citation: "trace seq 4; sandbox blocked 1; no provenance stated",
        provenance: "observed",
      },
      {
        item: "limitation-disclosed",
        points: 3,
        citation: "NOTES.md",
        provenance: "self-reported",
      },
      { item: "hidden-test-access", points: -10, citation: "unstated" },
    ]);
  });

  it("cites a disclosure it could not confirm with 0 points, and the score does not move", () => {
    const base = buildAgent({ trust: trustWith() });
    const unconfirmed = {
      trigger: "disclosure-unconfirmed" as const,
      citation: "final report: 'the cache is not invalidated'; no test or run shows it",
      provenance: "self-reported" as const,
    };
    const before = score(base);
    const after = score({ ...base, integrity: [...base.integrity, unconfirmed] });
    expect(after.adjustments[0]!.evidence).toContainEqual({
      item: "disclosure-unconfirmed",
      points: 0,
      citation: unconfirmed.citation,
      provenance: "self-reported",
    });
    expect(after.adjustments[0]!.points).toEqual(before.adjustments[0]!.points);
    expect(after.final).toEqual(before.final);
  });

  it("deducts 15 for a contradicted trace, within the −25 bound", () => {
    const b2 = score(
      buildAgent({
        integrity: [
          {
            trigger: "trace-contradicted",
            citation: "seq 9 claims a test run the runner never saw",
          },
          { trigger: "test-file-modified", citation: "tests/a.test.ts" },
          { trigger: "hidden-test-access", citation: "hidden/" },
        ],
      }),
    );
    expect(b2.adjustments[0]).toMatchObject({
      points: { text: "-25" },
      detail: "bonuses +0, penalties −35 capped at −25 → −25",
    });
  });

  it("keeps every provenance field in the public view, citations hidden", () => {
    const pub = toPublicBreakdown(b);
    expect(pub.components.map((c) => c.provenance)).toEqual(b.components.map((c) => c.provenance));
    expect(pub.adjustments.map((a) => a.provenance)).toEqual(
      b.adjustments.map((a) => a.provenance),
    );
    expect(pub.adjustments[0]!.evidence).toEqual([
      {
        item: "known-failure-disclosed",
        points: 5,
        citation: PRIVATE_CITATION,
        provenance: "cross-checked",
      },
      {
        item: "network-attempt (×3)",
        points: -5,
        citation: PRIVATE_CITATION,
        provenance: "observed",
      },
      {
        item: "trace-contradicted",
        points: -15,
        citation: PRIVATE_CITATION,
        provenance: "observed",
      },
    ]);
    expect(component(pub as unknown as Breakdown, "efficiency").details).toMatchObject({
      tokensProvenance: "observed",
    });
  });
});

describe("an input without trust", () => {
  it("is scored exactly as before: no provenance anywhere, nothing capped, version 1", () => {
    for (const input of [SEED_AGENT_EXAMPLE, ...Object.values(EDGE_EXAMPLES)]) {
      if (input.profile !== "agent" || input.trust) continue;
      const b = score(input);
      const text = JSON.stringify(b);
      expect(text).not.toContain('"provenance"');
      expect(text).not.toContain("tokensProvenance");
      expect(text).not.toContain(", cap ");
      expect(b.profileVersion).toBe(AGENT_VERSION_BEFORE_TRUST);
    }
  });

  it("says v2 as soon as it uses a rule v2 added, trust or a v2 trigger", () => {
    expect(score(buildAgent({ trust: trustWith() })).profileVersion).toBe(AGENT_VERSION);
    expect(
      score(buildAgent({ integrity: [{ trigger: "disclosure-unconfirmed", citation: "c" }] }))
        .profileVersion,
    ).toBe(AGENT_VERSION);
    expect(AGENT_VERSION).toBe(2);
  });
});

describe("the interval and the pairing keep a cap in every draw", () => {
  const SEED = "submission:01JTRUST";
  const scored = (input: AgentInput) => {
    const r = computeScore(input, { interval: { seed: SEED } });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.value as Breakdown & { interval: ScoreInterval };
  };
  /** Everything fixed but Process: a perfect Objective and agreeing panels. */
  const steady = (process: AgentInput["process"], trust: AgentTrust) =>
    buildAgent({
      objective: buildEngineering(),
      process,
      strategy: panel(70, 70, 70),
      recovery: panel(60, 60, 60),
      trust,
    });

  it("a panel whose every redraw is over its cap adds no width", () => {
    // Every redraw of [60, 80, 100] aggregates to 60 or more: capped at 25, always 25.
    const b = scored(steady(panel(60, 80, 100), trustWith({ process: capped(25) })));
    expect(b.interval.low).toEqual(b.final.unrounded);
    expect(b.interval.high).toEqual(b.final.unrounded);
    expect(b.interval.resampled).toEqual([]);
    expect(b.interval.fixed).toContain(
      "process (capped at 25: every redraw of its 3 judges reaches the cap)",
    );
    // Uncapped, the same panel varies.
    const free = scored(steady(panel(60, 80, 100), trustWith()));
    expect(x(free.interval.high).cmp(x(free.interval.low))).toBeGreaterThan(0);
  });

  it("a panel the cap binds in some redraws is capped in each replicate", () => {
    // [0, 20, 40] aggregates to 10 (mean − 10); about a quarter of redraws aggregate to 40.
    const held = scored(steady(panel(0, 20, 40), trustWith({ process: capped(25) })));
    const free = scored(steady(panel(0, 20, 40), trustWith()));
    expect(held.final).toEqual(free.final);
    const w = Exact.of(component(held, "process").weight).div(Exact.HUNDRED);
    const point = x(held.final.unrounded);
    // The top replicates reach the cap and no further: 25 − 10 over the point, times the weight.
    expect(x(held.interval.high).eq(point.add(Exact.of(15).mul(w)))).toBe(true);
    expect(x(free.interval.high).eq(point.add(Exact.of(30).mul(w)))).toBe(true);
    expect(held.interval.resampled).toEqual([
      "process: 3 judges, resampled, each replicate capped at 25",
    ]);
  });

  it("a stored breakdown re-draws the same capped interval", () => {
    const b = scored(CROSS_CHECKED_AGENT_EXAMPLE);
    const again = computeScore(
      JSON.parse(JSON.stringify(CROSS_CHECKED_AGENT_EXAMPLE)) as AgentInput,
      {
        interval: { seed: SEED },
      },
    );
    expect(again.ok && again.value.interval).toEqual(b.interval);
  });

  it("a capped panel whose every redraw reaches its cap adds no pairing variance", () => {
    const tests = Array.from({ length: 20 }, (_, i) => ({
      id: `t${String(i).padStart(2, "0")}`,
      category: "functionality" as const,
      passed: i < 15,
    }));
    const objective = buildEngineering({
      static: {
        passed: 15,
        total: 20,
        categories: { functionality: { passed: 15, total: 20 } },
        tests,
      },
    });
    const variance = (trust: AgentTrust) => {
      const r = computeScore({ ...steady(panel(60, 80, 100), trust), objective });
      if (!r.ok || !r.value.pairing) throw new Error("no pairing profile");
      return r.value.pairing.ownVariance;
    };
    // Zero up to the doubles' rounding (pairing is a significance mark, computed in doubles).
    expect(variance(trustWith({ process: capped(25) }))).toBeCloseTo(0, 9);
    expect(variance(trustWith())).toBeGreaterThan(1);
  });

  it("the pairing variance of a capped panel is that of its capped redraws", () => {
    const judges = [0, 20, 40].map((s) => ({
      score: { value: s, text: String(s), fraction: String(s) },
    }));
    const free = panelVariance(judges);
    const held = panelVariance(judges, 25);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(free);
    expect(panelVariance(judges, 0)).toBe(0);
    expect(panelVariance(judges, 100)).toBe(free);
  });
});
