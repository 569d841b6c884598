import fc from "fast-check";
import {
  computeScore,
  EDGE_EXAMPLES,
  FAMILIES,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  toPublicBreakdown,
  type AdjustmentProvenance,
  type AdversarialDetails,
  type AgentComponent,
  type AgentInput,
  type Breakdown,
  type CodeQualityDetails,
  type ComponentKey as EngineComponentKey,
  type ComponentProvenance,
  type DeliverablesDetails,
  type EfficiencyDetails,
  type EngineeringComponent,
  type EngineeringInput,
  type JudgedDetails,
  type ObjectiveBreakdown,
  type ObjectiveDetails,
  type PanelSummary,
  type Provenance,
  type PublicBreakdown,
  type PublicObjectiveBreakdown,
  type PublicSecurityDetails,
  type PublicStabilityDetails,
  type ScoreInput,
  type SecurityDetails,
  type StabilityDetails,
  type StaticDetails,
} from "@bouts/scoring";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import {
  BreakdownSchema,
  BreakdownViewSchema,
  ComponentSchema,
  ObjectiveBreakdownSchema,
  PublicBreakdownSchema,
  type AdjustmentProvenanceSchema,
  type AdversarialDetailsSchema,
  type BreakdownViewWire,
  type BreakdownWire,
  type CodeQualityDetailsSchema,
  type ComponentKey,
  type ComponentProvenanceSchema,
  type DeliverablesDetailsSchema,
  type EfficiencyDetailsSchema,
  type JudgedDetailsSchema,
  type ObjectiveDetailsSchema,
  type PanelSummarySchema,
  type ProvenanceWire,
  type PublicBreakdownWire,
  type PublicObjectiveBreakdownSchema,
  type PublicSecurityDetailsSchema,
  type PublicStabilityDetailsSchema,
  type SecurityDetailsSchema,
  type StabilityDetailsSchema,
  type StaticDetailsSchema,
} from "../src/index.ts";

/** The breakdown as it is stored and read back: JSON. */
function scoreToJson(input: ScoreInput): Breakdown {
  const r = computeScore(input);
  if (!r.ok) throw new Error(`does not score: ${JSON.stringify(r.error)}`);
  return JSON.parse(JSON.stringify(r.value)) as Breakdown;
}

/** Parses `b` with the contract and checks nothing was lost, added or reordered. */
function expectParsesUnchanged(schema: z.ZodType, b: unknown) {
  const parsed = schema.safeParse(b);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues.slice(0, 3), null, 1));
  expect(JSON.stringify(parsed.data)).toBe(JSON.stringify(b));
}

const EXAMPLES: [string, ScoreInput][] = [
  ["seed-engineering", SEED_ENGINEERING_EXAMPLE],
  ["seed-agent", SEED_AGENT_EXAMPLE],
  ...Object.entries(EDGE_EXAMPLES),
];

describe("the breakdown contract", () => {
  it.each(EXAMPLES)("describes the engine's breakdown of %s exactly", (_name, input) => {
    const b = scoreToJson(input);
    expectParsesUnchanged(BreakdownSchema, b);
    expectParsesUnchanged(BreakdownViewSchema, b);
  });

  it.each(EXAMPLES)("describes the public view of %s exactly", (_name, input) => {
    const pub = JSON.parse(JSON.stringify(toPublicBreakdown(scoreToJson(input)))) as unknown;
    expectParsesUnchanged(PublicBreakdownSchema, pub);
    expectParsesUnchanged(BreakdownViewSchema, pub);
  });

  it("tells the two views apart", () => {
    const b = scoreToJson(SEED_ENGINEERING_EXAMPLE);
    expect(PublicBreakdownSchema.safeParse(b).success).toBe(false);
    expect(BreakdownSchema.safeParse(toPublicBreakdown(b)).success).toBe(false);
  });

  it("nests one breakdown at most: an Objective nests none", () => {
    const agent = scoreToJson(SEED_AGENT_EXAMPLE);
    expect(ObjectiveBreakdownSchema.safeParse(agent.objective).success).toBe(true);
    expect(BreakdownSchema.safeParse({ ...agent, objective: agent }).success).toBe(false);
  });

  it("covers every edge the examples promise", () => {
    const all = EXAMPLES.map(([, input]) => scoreToJson(input));
    const finals = all.map((b) => b.final.unrounded.text);
    expect(finals).toContain("0");
    expect(finals).toContain("100");
    expect(finals.some((t) => t.endsWith("…"))).toBe(true);
    const adjustments = new Set(all.flatMap((b) => b.adjustments.map((a) => a.key)));
    expect([...adjustments].sort()).toEqual([
      "calibration",
      "clamp",
      "critical-cap",
      "exploits",
      "integrity",
    ]);
    const flags = new Set(all.flatMap((b) => [...b.flags, ...(b.objective?.flags ?? [])]));
    expect(new Set([...flags].map((f) => f.code))).toEqual(
      new Set([
        "human-review",
        "degraded-panel",
        "security-partially-measured",
        "severity-from-cwe-table",
      ]),
    );
    const efficiency = all
      .flatMap((b) => b.components)
      .filter((c) => c.key === "efficiency")
      .map((c) => c.details);
    expect(efficiency.some((d) => d.tokensUsed === null && d.tokenBudgetRatio === null)).toBe(true);
    expect(efficiency.some((d) => d.tokensUsed !== null && d.tokenBudget === null)).toBe(true);
  });

  it("answers not-measured, not a breakdown, for an agent run without telemetry", () => {
    const r = computeScore({ ...SEED_AGENT_EXAMPLE, efficiency: null });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ reason: "not-measured", field: "efficiency" });
  });

  it("accepts the efficiency trace the score worker adds", () => {
    const b = scoreToJson(SEED_AGENT_EXAMPLE);
    const withTrace = {
      ...b,
      components: b.components.map((c) =>
        c.key === "efficiency"
          ? {
              ...c,
              details: {
                ...c.details,
                trace: {
                  totalActions: 40,
                  unproductive: [{ seq: 3, rule: "failed-tool-call", detail: "npm test exited 1" }],
                  retryChurn: [{ seq: 9, repeatOf: 8, detail: "same command" }],
                  toolMisuse: [],
                  tokens: { used: 120_000, budget: 200_000, events: 12 },
                },
              },
            }
          : c,
      ),
    };
    expectParsesUnchanged(BreakdownSchema, withTrace);
  });

  it("rejects details that do not match their key", () => {
    const b = scoreToJson(SEED_ENGINEERING_EXAMPLE);
    const [stat, , , , security, stability] = b.components;
    const bad = (c: unknown) => ComponentSchema.safeParse(c).success;
    expect(bad(stat)).toBe(true);
    expect(bad({ ...stat, details: stability!.details })).toBe(false);
    expect(bad({ ...stat, key: "speed" })).toBe(false);
    expect(bad({ ...stat, details: { ...stat!.details, passed: "18" } })).toBe(false);
    expect(bad({ ...stat, details: { ...stat!.details, extra: 1 } })).toBe(false);
    expect(
      bad({
        ...stat,
        details: { ...stat!.details, categories: { unit: { passed: 1, total: 1 } } },
      }),
    ).toBe(false);
    const finding = (security!.details as SecurityDetails).findings[0]!;
    const withFinding = (f: unknown) => ({
      ...security,
      details: { ...security!.details, findings: [f] },
    });
    expect(bad(withFinding(finding))).toBe(true);
    expect(bad(withFinding({ ...finding, severity: "severe" }))).toBe(false);
    expect(bad(withFinding({ ...finding, deduction: "5" }))).toBe(false);
  });

  it("rejects an engineering breakdown with a misspelt aggregation rule", () => {
    const b = scoreToJson(SEED_ENGINEERING_EXAMPLE);
    const cq = b.components[2]!;
    const details = cq.details as CodeQualityDetails;
    const broken = {
      ...b,
      components: b.components.map((c) =>
        c === cq
          ? { ...cq, details: { ...details, panel: { ...details.panel, rule: "mean" } } }
          : c,
      ),
    };
    expect(BreakdownSchema.safeParse(broken).success).toBe(false);
  });
});

// ─── Every breakdown the engine can produce ───

const score = fc.integer({ min: 0, max: 1000 }).map((n) => n / 10);
const judges = <T>(make: (judge: string) => fc.Arbitrary<T>) =>
  fc
    .integer({ min: 1, max: 3 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => make(`judge-${i}`))));
const rubric = <D extends string>(dims: readonly D[]) =>
  judges((judge) =>
    fc.tuple(...dims.map(() => score)).map((values) => ({
      judge,
      dimensions: Object.fromEntries(dims.map((d, i) => [d, values[i]])) as Record<D, number>,
    })),
  );
const severity = fc.constantFrom("critical", "high", "medium", "low" as const);
const staticCounts = fc
  .subarray(["integration", "functionality", "edge"] as const)
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc
          .integer({ min: 0, max: 20 })
          .chain((total) =>
            fc.integer({ min: 0, max: total }).map((passed) => [name, { passed, total }] as const),
          ),
      ),
    ),
  )
  .chain((cats) => {
    const passed = cats.reduce((s, [, c]) => s + c.passed, 0);
    const total = cats.reduce((s, [, c]) => s + c.total, 0);
    if (cats.length > 0 && total > 0)
      return fc.constant({ passed, total, categories: Object.fromEntries(cats) });
    return fc
      .integer({ min: 1, max: 50 })
      .chain((t) => fc.integer({ min: 0, max: t }).map((p) => ({ passed: p, total: t })));
  });

const engineeringInput: fc.Arbitrary<EngineeringInput> = fc.record({
  profile: fc.constant("engineering" as const),
  static: staticCounts,
  adversarial: fc.record({
    tests: fc
      .array(
        fc.record({
          severity,
          origin: fc.constantFrom("prebuilt", "generated" as const),
          passed: fc.boolean(),
        }),
        { minLength: 1, maxLength: 8 },
      )
      .map((tests) => tests.map((t, i) => ({ id: `t${i}`, ...t }))),
  }),
  codeQuality: fc.record({
    judges: rubric(["readability", "architecture", "robustness", "idiomaticity"] as const),
  }),
  deliverables: fc.record({
    items: fc
      .array(
        fc.oneof(
          fc.record({
            status: fc.constant("submitted" as const),
            judges: rubric(["accuracy", "clarity", "completeness", "actionability"] as const),
          }),
          fc.record({ status: fc.constantFrom("missing", "placeholder" as const) }),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((items) => items.map((item, i) => ({ name: `D${i}.md`, ...item }))),
  }),
  security: fc.record(
    {
      findings: fc.array(
        fc.record(
          {
            cwe: fc.constantFrom(null, "CWE-89", "CWE-79", "CWE-338", "CWE-693", "CWE-1"),
            severity,
            rule: fc.string({ maxLength: 5 }),
            file: fc.constantFrom("src/a.ts", ""),
            line: fc.nat(500),
          },
          { requiredKeys: ["severity"] },
        ),
        { maxLength: 6 },
      ),
      notMeasured: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 2 }),
    },
    { requiredKeys: ["findings"] },
  ),
  stability: fc.record(
    {
      verdict: fc.constantFrom("clean", "warnings", "crashed" as const),
      evidence: fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
    },
    { requiredKeys: ["verdict"] },
  ),
});

const panel = judges((judge) => score.map((s) => ({ judge, score: s }))).map((j) => ({
  judges: j,
}));
const provenance = fc.constantFrom<Provenance>("observed", "self-reported", "cross-checked");
const componentTrust = fc.record({
  provenance,
  cap: fc.option(
    fc.oneof(
      fc.constantFrom(0, 25, 50, 100),
      fc.integer({ min: 0, max: 1000 }).map((n) => n / 10),
    ),
  ),
  basis: fc.string({ minLength: 1, maxLength: 20 }),
});
const adjustmentTrust = fc.record({
  provenance,
  basis: fc.string({ minLength: 1, maxLength: 20 }),
});
const evidence = <T extends string>(triggers: readonly T[]) =>
  fc.array(
    fc.record(
      {
        trigger: fc.constantFrom(...triggers),
        citation: fc.string({ minLength: 1, maxLength: 10 }),
        count: fc.integer({ min: 1, max: 4 }),
        provenance: provenance,
      },
      { requiredKeys: ["trigger", "citation"] },
    ),
    { maxLength: 4 },
  );

const agentRecord: fc.Arbitrary<AgentInput> = fc.record({
  profile: fc.constant("agent" as const),
  family: fc.constantFrom(...FAMILIES),
  customWeights: fc.constantFrom(null, {
    objective: 40,
    process: 15,
    strategy: 15,
    recovery: 15,
    efficiency: 10,
  }),
  objective: engineeringInput,
  process: panel,
  strategy: panel,
  recovery: panel,
  efficiency: fc.integer({ min: 1, max: 60 }).chain((total) =>
    fc.record(
      {
        totalActions: fc.constant(total),
        unproductiveActions: fc.integer({ min: 0, max: total }),
        retryChurnActions: fc.integer({ min: 0, max: total }),
        toolMisuseActions: fc.integer({ min: 0, max: total }),
        tokensUsed: fc.option(fc.nat(400_000)),
        tokenBudget: fc.option(fc.integer({ min: 1, max: 300_000 })),
        tokensProvenance: provenance,
      },
      {
        requiredKeys: [
          "totalActions",
          "unproductiveActions",
          "retryChurnActions",
          "toolMisuseActions",
        ],
      },
    ),
  ),
  integrity: evidence([
    "test-file-modified",
    "hidden-test-access",
    "network-attempt",
    "sandbox-escape-attempt",
    "environment-probing",
    "trace-contradicted",
    "known-failure-disclosed",
    "limitation-disclosed",
    "disclosure-unconfirmed",
  ] as const),
  exploits: evidence([
    "fake-test-output",
    "harness-exit-forcing",
    "test-input-special-casing",
    "test-tampering",
  ] as const),
  calibration: fc.record({
    claims: fc
      .array(
        fc.record(
          {
            confidence: fc.oneof(
              fc.constant("uncertain" as const),
              fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
            ),
            correct: fc.boolean(),
            basis: fc.string({ maxLength: 10 }),
          },
          { requiredKeys: ["confidence", "correct"] },
        ),
        { maxLength: 4 },
      )
      .map((claims) => claims.map((c, i) => ({ id: `claim-${i}`, ...c }))),
  }),
});

/** Agent runs with and without `trust` (inputs stored before it have none). */
const agentInput: fc.Arbitrary<AgentInput> = fc
  .tuple(
    agentRecord,
    fc.option(
      fc.record({
        process: componentTrust,
        strategy: componentTrust,
        recovery: componentTrust,
        efficiency: componentTrust,
        integrity: adjustmentTrust,
        calibration: adjustmentTrust,
      }),
      { nil: undefined },
    ),
  )
  .map(([input, trust]) => (trust ? { ...input, trust } : input));

describe("every breakdown the engine can produce", () => {
  it("parses with the contract, unchanged, in both views", () => {
    fc.assert(
      fc.property(fc.oneof(engineeringInput, agentInput), (input) => {
        const r = computeScore(input);
        if (!r.ok) throw new Error(`the generator made an unscorable input: ${r.error.detail}`);
        const b = JSON.parse(JSON.stringify(r.value)) as unknown;
        expectParsesUnchanged(BreakdownSchema, b);
        const pub = JSON.parse(JSON.stringify(toPublicBreakdown(r.value))) as unknown;
        expectParsesUnchanged(PublicBreakdownSchema, pub);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the engine's types and the contract's", () => {
  it("name the same components", () => {
    expectTypeOf<ComponentKey>().toEqualTypeOf<EngineComponentKey>();
    expectTypeOf<EngineComponentKey>().toEqualTypeOf<EngineeringComponent | AgentComponent>();
  });
  it("give each component the same details", () => {
    expectTypeOf<z.infer<typeof StaticDetailsSchema>>().toEqualTypeOf<StaticDetails>();
    expectTypeOf<z.infer<typeof AdversarialDetailsSchema>>().toEqualTypeOf<AdversarialDetails>();
    expectTypeOf<z.infer<typeof PanelSummarySchema>>().toEqualTypeOf<PanelSummary>();
    expectTypeOf<z.infer<typeof CodeQualityDetailsSchema>>().toEqualTypeOf<CodeQualityDetails>();
    expectTypeOf<z.infer<typeof DeliverablesDetailsSchema>>().toEqualTypeOf<DeliverablesDetails>();
    expectTypeOf<z.infer<typeof SecurityDetailsSchema>>().toEqualTypeOf<SecurityDetails>();
    expectTypeOf<z.infer<typeof StabilityDetailsSchema>>().toEqualTypeOf<StabilityDetails>();
    expectTypeOf<z.infer<typeof ObjectiveDetailsSchema>>().toEqualTypeOf<ObjectiveDetails>();
    expectTypeOf<z.infer<typeof JudgedDetailsSchema>>().toEqualTypeOf<JudgedDetails>();
    expectTypeOf<z.infer<typeof EfficiencyDetailsSchema>>().toEqualTypeOf<EfficiencyDetails>();
    expectTypeOf<ProvenanceWire>().toEqualTypeOf<Provenance>();
    expectTypeOf<z.infer<typeof ComponentProvenanceSchema>>().toEqualTypeOf<ComponentProvenance>();
    expectTypeOf<
      z.infer<typeof AdjustmentProvenanceSchema>
    >().toEqualTypeOf<AdjustmentProvenance>();
    expectTypeOf<
      z.infer<typeof PublicSecurityDetailsSchema>
    >().toEqualTypeOf<PublicSecurityDetails>();
    expectTypeOf<
      z.infer<typeof PublicStabilityDetailsSchema>
    >().toEqualTypeOf<PublicStabilityDetails>();
  });
  it("type whole breakdowns the same, both ways, in both views", () => {
    expectTypeOf<Breakdown>().toExtend<BreakdownWire>();
    expectTypeOf<BreakdownWire>().toExtend<Breakdown>();
    expectTypeOf<PublicBreakdown>().toExtend<PublicBreakdownWire>();
    expectTypeOf<PublicBreakdownWire>().toExtend<PublicBreakdown>();
    expectTypeOf<ObjectiveBreakdown>().toExtend<z.infer<typeof ObjectiveBreakdownSchema>>();
    expectTypeOf<z.infer<typeof ObjectiveBreakdownSchema>>().toExtend<ObjectiveBreakdown>();
    expectTypeOf<PublicObjectiveBreakdown>().toExtend<
      z.infer<typeof PublicObjectiveBreakdownSchema>
    >();
    expectTypeOf<
      z.infer<typeof PublicObjectiveBreakdownSchema>
    >().toExtend<PublicObjectiveBreakdown>();
    // The views are not interchangeable (the public one has no finding locations), but the
    // route's schema takes either.
    expectTypeOf<PublicBreakdown>().not.toExtend<BreakdownWire>();
    expectTypeOf<BreakdownWire>().not.toExtend<PublicBreakdownWire>();
    expectTypeOf<Breakdown>().toExtend<BreakdownViewWire>();
    expectTypeOf<PublicBreakdown>().toExtend<BreakdownViewWire>();
  });
});
