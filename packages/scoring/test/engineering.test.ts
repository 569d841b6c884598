import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  computeEngineering,
  computeScore,
  type EngineeringInput,
  type ScoringError,
} from "../src/index.ts";
import { buildEngineering, cq, dj, seedEngineering } from "./fixtures.ts";

const score = (input: EngineeringInput) => {
  const r = computeEngineering(input);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};
const failure = (input: unknown): ScoringError => {
  const r = computeScore(input as EngineeringInput);
  if (r.ok) throw new Error("expected a failure");
  return r.error;
};

describe("the engineering spec's worked example", () => {
  const b = score(seedEngineering());
  it("prints 82.075 and rounds to 82", () => {
    expect(b.final.unrounded.text).toBe("82.075");
    expect(b.final.unrounded.fraction).toBe("3283/40");
    expect(b.final.rounded).toBe(82);
    expect(b.band.label).toBe("Strong");
  });
  it("shows every component's score, weight and contribution", () => {
    expect(b.components.map((c) => [c.key, c.score.text, c.weight, c.contribution.text])).toEqual([
      ["static", "90", 35, "31.5"],
      ["adversarial", "70", 15, "10.5"],
      ["codeQuality", "72", 20, "14.4"],
      ["deliverables", "74.5", 15, "11.175"],
      ["security", "95", 10, "9.5"],
      ["stability", "100", 5, "5"],
    ]);
    expect(b.adjustments).toEqual([]);
    expect(b.math.at(-1)).toBe("final 82.075 → rounded half-up → 82 (Strong)");
  });
  it("reports the adversarial 40/60 composition", () => {
    const adv = b.components[1]!.details as {
      composition: {
        prebuilt: { weightShare: { text: string } };
        generated: { weightShare: { text: string } };
      };
    };
    expect(adv.composition.prebuilt.weightShare.text).toBe("40");
    expect(adv.composition.generated.weightShare.text).toBe("60");
    expect(b.components[1]!.formula).toBe("(14 / 20 weighted points) × 100 = 70");
  });
});

describe("security", () => {
  const finding = (cwe: string | null, severity: "critical" | "high" | "medium" | "low") => ({
    cwe,
    severity,
  });
  it("deducts per finding and floors at zero", () => {
    const b = score(
      buildEngineering({
        security: {
          findings: [finding("CWE-79", "high"), finding("CWE-338", "medium"), finding(null, "low")],
        },
      }),
    );
    expect(b.components[4]!.score.text).toBe("79");
    const floored = score(
      buildEngineering({
        security: { findings: Array.from({ length: 5 }, () => finding("CWE-89", "critical")) },
      }),
    );
    expect(floored.components[4]!.score.text).toBe("0");
  });
  it("caps a working solution with one SQL injection at 75", () => {
    const b = score(
      buildEngineering({
        security: {
          findings: [{ cwe: "CWE-89", severity: "critical", file: "src/db.ts", line: 4 }],
        },
      }),
    );
    expect(b.weightedSum.text).toBe("97.5"); // the formula alone
    expect(b.final.unrounded.text).toBe("75");
    expect(b.adjustments[0]).toMatchObject({ key: "critical-cap", points: { text: "-22.5" } });
    expect(b.adjustments[0]!.evidence[0]!.citation).toBe("src/db.ts:4");
  });
  it("shows the cap without effect when the score is already below it", () => {
    const b = score(
      buildEngineering({
        static: { passed: 2, total: 10 },
        security: { findings: [finding("CWE-798", "critical")] },
      }),
    );
    expect(b.adjustments[0]).toMatchObject({ key: "critical-cap", points: { text: "0" } });
    expect(b.final.unrounded.text).toBe(b.weightedSum.text);
  });
  it("lets the CWE table decide the severity", () => {
    const b = score(buildEngineering({ security: { findings: [finding("CWE-89", "low")] } }));
    expect(b.components[4]!.score.text).toBe("75");
    expect(b.flags.map((f) => f.code)).toContain("severity-from-cwe-table");
    expect(b.final.unrounded.text).toBe("75");
  });
  it("flags checks that were not measured", () => {
    const b = score(
      buildEngineering({ security: { findings: [], notMeasured: ["dependency advisories"] } }),
    );
    expect(b.flags).toContainEqual({
      code: "security-partially-measured",
      component: "security",
      message: "not measured: dependency advisories",
    });
  });
});

describe("stability, deliverables and panels", () => {
  it("scores stability 100, 50, 0", () => {
    for (const [verdict, s] of [
      ["clean", "100"],
      ["warnings", "50"],
      ["crashed", "0"],
    ] as const)
      expect(score(buildEngineering({ stability: { verdict } })).components[5]!.score.text).toBe(s);
  });
  it("scores a missing or placeholder deliverable 0 and averages several", () => {
    const b = score(
      buildEngineering({
        deliverables: {
          items: [
            {
              name: "ROOT_CAUSE.md",
              status: "submitted",
              judges: [dj("j1", 90), dj("j2", 90), dj("j3", 90)],
            },
            { name: "ADR.md", status: "placeholder" },
            { name: "RUNBOOK.md", status: "missing" },
          ],
        },
      }),
    );
    expect(b.components[3]!.score.text).toBe("30");
    expect(b.components[3]!.formula).toBe("mean(90, 0, 0) = 30");
  });
  it("weighs deliverable dimensions 40/25/20/15", () => {
    const b = score(
      buildEngineering({
        deliverables: {
          items: [
            {
              name: "N",
              status: "submitted",
              judges: [
                {
                  judge: "j",
                  dimensions: { accuracy: 100, clarity: 0, completeness: 0, actionability: 0 },
                },
              ],
            },
          ],
        },
      }),
    );
    expect(b.components[3]!.score.text).toBe("40");
    expect(b.flags.map((f) => f.code)).toEqual(["degraded-panel", "human-review"]);
  });
  it("flags the ambiguity penalty for human review", () => {
    const b = score(
      buildEngineering({ codeQuality: { judges: [cq("a", 50), cq("b", 60), cq("c", 70)] } }),
    );
    expect(b.components[2]!.score.text).toBe("50");
    expect(b.flags).toContainEqual(
      expect.objectContaining({ code: "human-review", component: "codeQuality" }),
    );
  });
});

describe("bad input", () => {
  it("names the field when counts do not add up", () => {
    expect(failure(buildEngineering({ static: { passed: 11, total: 10 } }))).toMatchObject({
      reason: "invalid-input",
      field: "static.passed",
    });
    expect(
      failure(
        buildEngineering({
          static: { passed: 5, total: 10, categories: { functionality: { passed: 5, total: 9 } } },
        }),
      ),
    ).toMatchObject({ field: "static.categories" });
    expect(failure(buildEngineering({ static: { passed: 0, total: 0 } }))).toMatchObject({
      field: "static.total",
    });
  });
  it("rejects scores outside 0–100 and NaN", () => {
    expect(failure(buildEngineering({ codeQuality: { judges: [cq("a", 101)] } }))).toMatchObject({
      field: "codeQuality.judges[0].dimensions.readability",
    });
    expect(
      failure(buildEngineering({ codeQuality: { judges: [cq("a", Number.NaN)] } })),
    ).toMatchObject({ field: "codeQuality.judges[0].dimensions.readability" });
  });
  it("rejects unknown severities and a panel of 0 judges", () => {
    const bad = buildEngineering();
    (bad.adversarial.tests[0] as { severity: string }).severity = "catastrophic";
    expect(failure(bad)).toMatchObject({ field: "adversarial.tests[0].severity" });
    expect(failure(buildEngineering({ codeQuality: { judges: [] } }))).toMatchObject({
      field: "codeQuality.judges",
    });
    expect(
      failure(buildEngineering({ security: { findings: [{ severity: "severe" as "low" }] } })),
    ).toMatchObject({ field: "security.findings[0].severity" });
  });
  it("rejects an unknown profile and a non-object", () => {
    expect(failure({ profile: "speed" })).toMatchObject({ field: "profile" });
    expect(failure(null)).toMatchObject({ field: "profile" });
  });
  it("rejects duplicate test ids and a malformed CWE", () => {
    const dup = buildEngineering();
    dup.adversarial.tests[1]!.id = "a1";
    expect(failure(dup)).toMatchObject({ field: "adversarial.tests[1].id" });
    expect(
      failure(buildEngineering({ security: { findings: [{ cwe: "89", severity: "low" }] } })),
    ).toMatchObject({ field: "security.findings[0].cwe" });
  });
});

// ─── Properties ───

const arbInput = fc
  .record({
    total: fc.integer({ min: 1, max: 60 }),
    passedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    adv: fc.array(
      fc.record({
        severity: fc.constantFrom("critical", "high", "medium", "low"),
        origin: fc.constantFrom("prebuilt", "generated"),
        passed: fc.boolean(),
      }),
      { minLength: 1, maxLength: 12 },
    ),
    judges: fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 4 }),
    deliverables: fc.array(fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 100 })), {
      minLength: 1,
      maxLength: 3,
    }),
    findings: fc.array(
      fc.constantFrom("critical" as const, "high" as const, "medium" as const, "low" as const),
      { maxLength: 8 },
    ),
    stability: fc.constantFrom("clean" as const, "warnings" as const, "crashed" as const),
  })
  .map((r): EngineeringInput => ({
    profile: "engineering",
    static: { passed: Math.floor(r.passedShare * r.total), total: r.total },
    adversarial: {
      tests: r.adv.map((t, i) => ({
        id: `t${i}`,
        ...t,
      })),
    },
    codeQuality: { judges: r.judges.map((s, i) => cq(`j${i}`, s)) },
    deliverables: {
      items: r.deliverables.map((s, i) =>
        s < 0
          ? { name: `d${i}`, status: "missing" as const }
          : { name: `d${i}`, status: "submitted" as const, judges: [dj("a", s), dj("b", s)] },
      ),
    },
    security: { findings: r.findings.map((severity) => ({ severity })) },
    stability: { verdict: r.stability },
  }));

describe("properties", () => {
  it("always lands within 0–100 with a finite, rounded score", () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        const b = score(input);
        expect(Number.isFinite(b.final.unrounded.value)).toBe(true);
        expect(b.final.unrounded.value).toBeGreaterThanOrEqual(0);
        expect(b.final.unrounded.value).toBeLessThanOrEqual(100);
        expect(Number.isInteger(b.final.rounded)).toBe(true);
      }),
    );
  });
  it("does not decrease when any component's score rises (the critical cap aside)", () => {
    fc.assert(
      fc.property(arbInput, arbInput, fc.integer({ min: 0, max: 5 }), (a, b, k) => {
        const keys = [
          "static",
          "adversarial",
          "codeQuality",
          "deliverables",
          "security",
          "stability",
        ] as const;
        const key = keys[k]!;
        const mixed = { ...a, [key]: b[key] } as EngineeringInput;
        if (key === "security") {
          // Keep the presence of a critical finding unchanged: the cap depends on it by design.
          const crit = (i: EngineeringInput) =>
            i.security.findings.some((f) => f.severity === "critical");
          if (crit(a) !== crit(mixed)) return;
        }
        const before = score(a);
        const after = score(mixed);
        const compBefore = before.components[k]!.score.value;
        const compAfter = after.components[k]!.score.value;
        if (compAfter >= compBefore)
          expect(after.final.unrounded.value).toBeGreaterThanOrEqual(before.final.unrounded.value);
      }),
      { numRuns: 300 },
    );
  });
  it("is deterministic", () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        expect(score(input)).toEqual(score(structuredClone(input)));
      }),
    );
  });
});
