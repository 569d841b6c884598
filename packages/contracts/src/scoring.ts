/**
 * @module contracts/scoring
 * Wire schemas of the scoring engine's inputs and of its published breakdown. They mirror
 * the types of @bouts/scoring (type tests keep them in step); the engine re-checks values. The
 * profile ids are the engine's registry's, and each has its input schema here
 * (`PROFILE_INPUT_SCHEMAS`). Pure: zod and the engine's vocabularies.
 */
import { PROFILES, TRUST_BASIS_MAX, type InputOf, type ProfileId } from "@bouts/scoring";
import { z } from "zod";
import {
  AdjustmentProvenanceSchema,
  AdversarialDetailsSchema,
  CodeQualityDetailsSchema,
  ComponentProvenanceSchema,
  DeliverablesDetailsSchema,
  EfficiencyDetailsSchema,
  ExactValueSchema,
  JudgedDetailsSchema,
  ObjectiveDetailsSchema,
  PublicSecurityDetailsSchema,
  PublicStabilityDetailsSchema,
  SecurityDetailsSchema,
  StabilityDetailsSchema,
  StaticDetailsSchema,
} from "./breakdown-details.ts";
import { ExploitTriggerSchema, IntegrityTriggerSchema, ProvenanceSchema } from "./evidence.ts";
import { SeveritySchema } from "./findings.ts";

/** A scoring profile's id: the engine's registry is the one list (`PROFILES`). */
export const ProfileSchema = z.enum(PROFILES);
export type Profile = z.infer<typeof ProfileSchema>;

export const FAMILIES = [
  "default",
  "blacksite-debug",
  "fog-of-war",
  "false-summit",
  "versus-arena",
  "marathon-strategy",
  "constraint-maze",
  "recovery-lab",
  "humanity-gap",
] as const;
export const FamilySchema = z.enum(FAMILIES);
export type Family = z.infer<typeof FamilySchema>;

const percent = z.int().min(0).max(100);
/** Custom agent-run weights in whole percents; the engine's validator checks the rules. */
export const AgentWeightsSchema = z.strictObject({
  objective: percent,
  process: percent,
  strategy: percent,
  recovery: percent,
  efficiency: percent,
});
export type AgentWeightsWire = z.infer<typeof AgentWeightsSchema>;

const score = z.number().min(0).max(100);
const id = z.string().min(1).max(200);
const counts = z.strictObject({ passed: z.int().min(0), total: z.int().min(0) });

/** A structured confidence claim, as an agent submits it (docs/design.md §9). */
export const ConfidenceClaimSchema = z.strictObject({
  id: id.regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only"),
  statement: z.string().min(1).max(1000),
  confidence: z.union([z.number().min(0).max(1), z.literal("uncertain")]),
  tests: z.array(z.string().min(1).max(300)).max(200).optional(),
});
export type ConfidenceClaim = z.infer<typeof ConfidenceClaimSchema>;

/** Who a judge is: the offline heuristic panel (static analysis) or a named model. */
export const JudgeProvenanceSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("heuristic"), method: z.string().min(1).max(300) }),
  z.strictObject({
    kind: z.literal("model"),
    provider: z.string().min(1).max(100),
    model: z.string().min(1).max(200),
  }),
]);

export const CodeQualityJudgementSchema = z.strictObject({
  judge: id,
  provenance: JudgeProvenanceSchema.optional(),
  dimensions: z.strictObject({
    readability: score,
    architecture: score,
    robustness: score,
    idiomaticity: score,
  }),
});
export const DeliverableJudgementSchema = z.strictObject({
  judge: id,
  provenance: JudgeProvenanceSchema.optional(),
  dimensions: z.strictObject({
    accuracy: score,
    clarity: score,
    completeness: score,
    actionability: score,
  }),
});

export const EngineeringInputSchema = z.strictObject({
  profile: z.literal("engineering"),
  static: z.strictObject({
    passed: z.int().min(0),
    total: z.int().min(1),
    categories: z
      .strictObject({
        functionality: counts.optional(),
        edge: counts.optional(),
        integration: counts.optional(),
      })
      .optional(),
    tests: z
      .array(
        z.strictObject({
          id,
          category: z.enum(["functionality", "edge", "integration"]),
          passed: z.boolean(),
        }),
      )
      .max(10_000)
      .optional()
      .describe("per-test verdicts by suite id, for the board's paired comparison only"),
  }),
  adversarial: z.strictObject({
    tests: z
      .array(
        z.strictObject({
          id,
          severity: SeveritySchema,
          origin: z.enum(["prebuilt", "generated"]),
          passed: z.boolean(),
        }),
      )
      .min(1),
  }),
  codeQuality: z.strictObject({ judges: z.array(CodeQualityJudgementSchema).min(1) }),
  deliverables: z.strictObject({
    items: z
      .array(
        z.strictObject({
          name: id,
          status: z.enum(["submitted", "missing", "placeholder"]),
          judges: z.array(DeliverableJudgementSchema).optional(),
        }),
      )
      .min(1),
  }),
  security: z.strictObject({
    findings: z.array(
      z.strictObject({
        cwe: z
          .string()
          .regex(/^CWE-\d{1,5}$/)
          .nullable()
          .optional(),
        severity: SeveritySchema,
        rule: z.string().max(200).optional(),
        tool: z.string().max(64).optional(),
        file: z.string().max(1024).optional(),
        line: z.int().min(0).optional(),
        message: z.string().max(2000).optional(),
      }),
    ),
    notMeasured: z.array(z.string().min(1).max(500)).optional(),
  }),
  stability: z.strictObject({
    verdict: z.enum(["clean", "warnings", "crashed"]),
    evidence: z.array(z.string().max(2000)).optional(),
  }),
});
export type EngineeringInputWire = z.infer<typeof EngineeringInputSchema>;

const panel = z.strictObject({
  judges: z
    .array(z.strictObject({ judge: id, provenance: JudgeProvenanceSchema.optional(), score }))
    .min(1),
});

export const EfficiencyInputSchema = z.strictObject({
  totalActions: z.int().min(1),
  unproductiveActions: z.int().min(0),
  retryChurnActions: z.int().min(0),
  toolMisuseActions: z.int().min(0),
  tokensUsed: z.int().min(0).nullable().optional(),
  tokenBudget: z.int().min(1).nullable().optional(),
  tokensProvenance: ProvenanceSchema.optional(),
});

const basis = z.string().min(1).max(TRUST_BASIS_MAX);
const componentTrust = z.strictObject({
  provenance: ProvenanceSchema,
  cap: z.number().min(0).max(100).nullable().describe("the most the component may score"),
  basis,
});
const adjustmentTrust = z.strictObject({ provenance: ProvenanceSchema, basis });

/**
 * What the agent-run figures rest on and the caps that follow (docs/scoring.md, "Provenance
 * and trust caps"): one entry per trace-based component and adjustment.
 */
export const AgentTrustSchema = z.strictObject({
  process: componentTrust,
  strategy: componentTrust,
  recovery: componentTrust,
  efficiency: componentTrust,
  integrity: adjustmentTrust,
  calibration: adjustmentTrust,
});

/** One cited observation of a trigger, as the agent-run input carries it. */
const evidenceOf = <T extends z.ZodType>(trigger: T) =>
  z.strictObject({
    trigger,
    citation: z.string().min(1).max(500),
    count: z.int().min(1).optional(),
    provenance: ProvenanceSchema.optional(),
  });

export const AgentInputSchema = z.strictObject({
  profile: z.literal("agent"),
  family: FamilySchema,
  customWeights: AgentWeightsSchema.nullable().optional(),
  objective: EngineeringInputSchema,
  process: panel,
  strategy: panel,
  recovery: panel,
  efficiency: EfficiencyInputSchema.nullable(),
  integrity: z.array(evidenceOf(IntegrityTriggerSchema)),
  exploits: z.array(evidenceOf(ExploitTriggerSchema)),
  calibration: z.strictObject({
    claims: z.array(
      z.strictObject({
        id,
        confidence: z.union([z.number().min(0).max(1), z.literal("uncertain")]),
        correct: z.boolean(),
        basis: z.string().max(500).optional(),
      }),
    ),
  }),
  trust: AgentTrustSchema.optional().describe(
    "absent in inputs stored before traces were cross-checked: nothing is capped",
  ),
});
export type AgentInputWire = z.infer<typeof AgentInputSchema>;

/**
 * Each profile's input schema, by profile id: a profile of the engine's registry without one
 * does not compile, nor does a schema whose parsed value is not that profile's engine input.
 */
export const PROFILE_INPUT_SCHEMAS = {
  engineering: EngineeringInputSchema,
  agent: AgentInputSchema,
} as const satisfies { readonly [K in ProfileId]: z.ZodType<InputOf<K>> };

/** Input of any profile, told apart by `profile`. */
export const ScoreInputSchema = z.discriminatedUnion(
  "profile",
  PROFILES.map((id) => PROFILE_INPUT_SCHEMAS[id]) as [
    (typeof PROFILE_INPUT_SCHEMAS)[ProfileId],
    ...(typeof PROFILE_INPUT_SCHEMAS)[ProfileId][],
  ],
);
export type ScoreInputWire = z.infer<typeof ScoreInputSchema>;

// ─── Breakdown (output) ───

const componentBase = {
  label: z.string(),
  weight: z.number().min(0).max(100).describe("weight in percent"),
  score: ExactValueSchema,
  contribution: ExactValueSchema.describe("score × weight / 100"),
  formula: z.string().describe("the formula with this submission's numbers"),
};

/** One weighted component of the given key, with that key's details. */
const component = <K extends string, D extends z.ZodType>(key: K, details: D) =>
  z.strictObject({
    key: z.literal(key),
    ...componentBase,
    details,
    notes: z.array(z.string()),
    provenance: ComponentProvenanceSchema.optional().describe(
      "what the score rests on (agent-run components): observed, self-reported or cross-checked",
    ),
  });

const StaticComponentSchema = component("static", StaticDetailsSchema);
const AdversarialComponentSchema = component("adversarial", AdversarialDetailsSchema);
const CodeQualityComponentSchema = component("codeQuality", CodeQualityDetailsSchema);
const DeliverablesComponentSchema = component("deliverables", DeliverablesDetailsSchema);
const ObjectiveComponentSchema = component("objective", ObjectiveDetailsSchema);
const ProcessComponentSchema = component("process", JudgedDetailsSchema);
const StrategyComponentSchema = component("strategy", JudgedDetailsSchema);
const RecoveryComponentSchema = component("recovery", JudgedDetailsSchema);
const EfficiencyComponentSchema = component("efficiency", EfficiencyDetailsSchema);

/** One component of a breakdown, its `details` told apart by `key`. */
export const ComponentSchema = z.discriminatedUnion("key", [
  StaticComponentSchema,
  AdversarialComponentSchema,
  CodeQualityComponentSchema,
  DeliverablesComponentSchema,
  component("security", SecurityDetailsSchema),
  component("stability", StabilityDetailsSchema),
  ObjectiveComponentSchema,
  ProcessComponentSchema,
  StrategyComponentSchema,
  RecoveryComponentSchema,
  EfficiencyComponentSchema,
]);
export type ComponentWire = z.infer<typeof ComponentSchema>;

/** A component as the public view shows it: security and stability without private details. */
export const PublicComponentSchema = z.discriminatedUnion("key", [
  StaticComponentSchema,
  AdversarialComponentSchema,
  CodeQualityComponentSchema,
  DeliverablesComponentSchema,
  component("security", PublicSecurityDetailsSchema),
  component("stability", PublicStabilityDetailsSchema),
  ObjectiveComponentSchema,
  ProcessComponentSchema,
  StrategyComponentSchema,
  RecoveryComponentSchema,
  EfficiencyComponentSchema,
]);
export type PublicComponentWire = z.infer<typeof PublicComponentSchema>;

/** The component keys of both profiles. */
export type ComponentKey = ComponentWire["key"];

const AdjustmentSchema = z.strictObject({
  key: z.enum(["critical-cap", "integrity", "exploits", "calibration", "clamp"]),
  label: z.string(),
  points: ExactValueSchema,
  detail: z.string(),
  evidence: z.array(
    z.strictObject({
      item: z.string(),
      points: z.number().nullable(),
      citation: z.string(),
      provenance: ProvenanceSchema.optional().describe("who made the observation"),
    }),
  ),
  provenance: AdjustmentProvenanceSchema.optional().describe(
    "what the adjustment rests on (integrity, calibration of an agent run)",
  ),
});

const FlagSchema = z.strictObject({
  code: z.enum([
    "human-review",
    "degraded-panel",
    "security-partially-measured",
    "severity-from-cwe-table",
    "evidence-not-scored",
    "heuristic-judges",
  ]),
  component: z.string().nullable(),
  message: z.string(),
});

/** Who graded a breakdown's judged components (docs/judges.md, "Provenance"). */
export const JudgingSchema = z.strictObject({
  panel: z
    .enum(["heuristic", "model", "mixed", "unspecified"])
    .describe("heuristic: every judge is the offline static-analysis panel, no model"),
  judges: z.array(
    z.strictObject({
      judge: z.string(),
      kind: z.enum(["heuristic", "model", "unspecified"]),
      provider: z.string().nullable(),
      model: z.string().nullable(),
      method: z.string().nullable(),
      components: z.array(z.string()),
    }),
  ),
  summary: z.string(),
});

/** The 95 % interval of a final score (docs/scoring.md, "Score interval"). */
export const ScoreIntervalSchema = z
  .strictObject({
    level: z.number().min(0).max(100).describe("confidence level, percent"),
    low: ExactValueSchema,
    high: ExactValueSchema,
    method: z.literal("stratified-bootstrap/v1"),
    prng: z.literal("xoshiro128**"),
    seed: z
      .string()
      .min(1)
      .max(200)
      .describe("`npm run score -- <input> --seed <seed>` reproduces it"),
    replicates: z.int().min(100).max(100_000),
    resampled: z.array(z.string()).describe("what varied between replicates"),
    fixed: z.array(z.string()).describe("what entered every replicate unchanged"),
    widenedToPoint: z
      .boolean()
      .describe("the percentile interval missed the point estimate and was widened to it"),
  })
  .describe("seeded stratified bootstrap through the engine's exact formula");
export type ScoreIntervalWire = z.infer<typeof ScoreIntervalSchema>;

/** The verdicts on the shared tests for the board's paired comparison (docs/scoring.md). */
export const PairingProfileSchema = z
  .strictObject({
    method: z.literal("paired-normal/v1"),
    suite: z.string().min(1).max(64).describe("digest of the shared tests' ids by stratum"),
    strata: z
      .array(
        z.strictObject({
          key: z.string().min(1).max(64),
          n: z.int().min(1).max(10_000),
          coef: z.number().min(0).max(100).describe("final-score points one passed test is worth"),
          passed: z
            .string()
            .regex(/^[0-9a-f]*$/)
            .max(2_500)
            .describe("verdicts in test-id order, 4 per hex digit, first test in the high bit"),
        }),
      )
      .max(16),
    ownVariance: z
      .number()
      .min(0)
      .max(10_000)
      .describe("variance (points²) of what is not shared: judges, generated tests"),
  })
  .refine((p) => p.strata.every((s) => s.passed.length === Math.ceil(s.n / 4)), {
    message: "each stratum's verdicts hold one bit per test",
  })
  .describe("paired comparison on shared tests: verdict bits and the unshared variance");
export type PairingProfileWire = z.infer<typeof PairingProfileSchema>;

const BAND_KEYS = ["elite", "strong", "competent", "struggling", "weak", "failed"] as const;

/** A breakdown around its components; `objective` is what it nests (an Objective, or null). */
const breakdownObject = <C extends z.ZodType, O extends z.ZodType>(components: C, objective: O) =>
  z.strictObject({
    schema: z.literal("bouts.breakdown/v1"),
    profile: ProfileSchema,
    profileVersion: z.int().min(1),
    family: z.string().nullable(),
    components: z.array(components),
    weightedSum: ExactValueSchema.describe("Σ contributions, before adjustments"),
    adjustments: z.array(AdjustmentSchema),
    final: z.strictObject({ unrounded: ExactValueSchema, rounded: z.int().min(0).max(100) }),
    interval: ScoreIntervalSchema.optional(),
    pairing: PairingProfileSchema.optional(),
    band: z.strictObject({
      key: z.enum(BAND_KEYS),
      label: z.string(),
      min: z.int(),
      max: z.int(),
      meaning: z.string(),
    }),
    flags: z.array(FlagSchema),
    // Breakdowns stored before provenance was recorded read as "unspecified", never as models.
    judging: JudgingSchema.default({
      panel: "unspecified",
      judges: [],
      summary: "Scored before judge provenance was recorded.",
    }).describe("who graded the judged components: the heuristic panel or models"),
    math: z.array(z.string()).describe("the computation as plain lines, top to bottom"),
    objective,
  });

/**
 * A breakdown that nests none: the engineering profile's, also as the Objective of an agent
 * run (the engine nests one level at most, so the schema is not recursive).
 */
export const ObjectiveBreakdownSchema = breakdownObject(ComponentSchema, z.null());

/** The published breakdown of one score, as the engine wrote it (see docs/scoring.md). */
export const BreakdownSchema = breakdownObject(
  ComponentSchema,
  ObjectiveBreakdownSchema.nullable().describe(
    "for the agent profile, the engineering breakdown its Objective came from",
  ),
);
export type BreakdownWire = z.infer<typeof BreakdownSchema>;

/** A breakdown that nests none, in the public view. */
export const PublicObjectiveBreakdownSchema = breakdownObject(PublicComponentSchema, z.null());

/**
 * The public view of a breakdown (`toPublicBreakdown` of @bouts/scoring): every number, no
 * finding locations, stability evidence or adjustment citations.
 */
export const PublicBreakdownSchema = breakdownObject(
  PublicComponentSchema,
  PublicObjectiveBreakdownSchema.nullable().describe(
    "for the agent profile, the engineering breakdown its Objective came from",
  ),
);
export type PublicBreakdownWire = z.infer<typeof PublicBreakdownSchema>;

/** A component in either view: only security and stability differ between the two. */
const ViewComponentSchema = z.discriminatedUnion("key", [
  StaticComponentSchema,
  AdversarialComponentSchema,
  CodeQualityComponentSchema,
  DeliverablesComponentSchema,
  component("security", z.union([SecurityDetailsSchema, PublicSecurityDetailsSchema])),
  component("stability", z.union([StabilityDetailsSchema, PublicStabilityDetailsSchema])),
  ObjectiveComponentSchema,
  ProcessComponentSchema,
  StrategyComponentSchema,
  RecoveryComponentSchema,
  EfficiencyComponentSchema,
]);

/**
 * A breakdown in either view, as the breakdown route answers it (its `view` says which): the
 * owner's has finding locations and stability evidence, the public one neither. Every
 * breakdown of `BreakdownSchema` and of `PublicBreakdownSchema` is one.
 */
export const BreakdownViewSchema = breakdownObject(
  ViewComponentSchema,
  breakdownObject(ViewComponentSchema, z.null())
    .nullable()
    .describe("for the agent profile, the engineering breakdown its Objective came from"),
);
export type BreakdownViewWire = z.infer<typeof BreakdownViewSchema>;
