/**
 * @module contracts/breakdown-details
 * The `details` of each breakdown component, one schema per component key, exactly as the
 * scoring engine (@bouts/scoring, `ComponentDetailsMap`) writes them; type tests keep the two
 * in step. Invariants: every object lists its keys in the order the engine writes them and
 * records keyed by the input (static categories) keep the input's order, so a parsed
 * breakdown serializes to the same JSON; every object is strict. Pure: zod and the engine's
 * vocabularies.
 */
import { z } from "zod";
import { StaticCategorySchema } from "./challenge-bundle.ts";
import { ProvenanceSchema } from "./evidence.ts";
import { SeveritySchema } from "./findings.ts";

/** A number as a breakdown publishes it: a double, its exact decimal text, its fraction. */
export const ExactValueSchema = z.strictObject({
  value: z.number(),
  text: z.string().describe("exact decimal; a non-terminating one is rounded to 6 places + '…'"),
  fraction: z
    .string()
    .regex(/^-?\d+(\/\d+)?$/)
    .describe("exact value in lowest terms, e.g. 3283/40"),
});

/**
 * What an agent-run component rests on and the cap that followed (docs/scoring.md, "Provenance
 * and trust caps"); absent from breakdowns of inputs that did not say.
 */
export const ComponentProvenanceSchema = z.strictObject({
  kind: ProvenanceSchema,
  basis: z.string().describe("what was checked and what it found; may quote the agent's trace"),
  cap: z
    .strictObject({
      max: z.number().min(0).max(100).describe("the most the component may score"),
      uncapped: ExactValueSchema.describe("the score before the cap"),
    })
    .nullable()
    .describe("score = min(uncapped, max); null when uncapped"),
});

/** What an adjustment (integrity, calibration) rests on. */
export const AdjustmentProvenanceSchema = z.strictObject({
  kind: ProvenanceSchema,
  basis: z.string(),
});

const count = z.int().min(0);
const percent = z.number().min(0).max(100);
const weightPercent = z.int().min(0).max(100);
const bySeverity = <T extends z.ZodType>(value: T) =>
  z.strictObject({ critical: value, high: value, medium: value, low: value });

/** Which branch of the judge aggregation produced a panel's score. */
export const AggregationRuleSchema = z.enum([
  "median",
  "outlier-discarded",
  "ambiguity-penalty",
  "single-judge",
]);

const JudgeScoreSchema = z.strictObject({ judge: z.string(), score: ExactValueSchema });

/** How a judge panel was aggregated (docs/scoring.md, "Judge aggregation"). */
export const PanelSummarySchema = z.strictObject({
  judges: z.array(JudgeScoreSchema),
  rule: AggregationRuleSchema,
  discarded: z.array(z.string()).describe("judges set aside as outliers"),
  spread: ExactValueSchema,
  degraded: z.boolean().describe("fewer valid judgements than the panel of three"),
  humanReview: z.boolean(),
  note: z.string().nullable(),
  explanation: z.string(),
  score: ExactValueSchema,
});

// ─── Engineering components ───

/** Static tests: the counts, and per category when the run reported categories ({} if not). */
export const StaticDetailsSchema = z.strictObject({
  passed: count,
  total: z.int().min(1),
  categories: z.partialRecord(
    StaticCategorySchema,
    z.strictObject({
      passed: count,
      total: count,
      shareOfSuite: ExactValueSchema.describe("percent of the suite's tests"),
      intendedShare: weightPercent.describe("the intended composition, in percent"),
    }),
  ),
});

const AdversarialOriginSchema = z.strictObject({
  tests: count,
  weightShare: ExactValueSchema.describe("percent of the total severity weight"),
});

/** Adversarial tests: severity-weighted points, per-severity counts, pre-built/generated split. */
export const AdversarialDetailsSchema = z.strictObject({
  weightedPassed: z.number().min(0),
  weightedTotal: z.number().min(0),
  severityWeights: bySeverity(z.number().min(0)),
  bySeverity: bySeverity(z.strictObject({ passed: count, total: count })),
  composition: z.strictObject({
    target: z.strictObject({ prebuilt: weightPercent, generated: weightPercent }),
    prebuilt: AdversarialOriginSchema,
    generated: AdversarialOriginSchema,
  }),
});

const CodeQualityDimensionsSchema = z.strictObject({
  readability: percent,
  architecture: percent,
  robustness: percent,
  idiomaticity: percent,
});

/** Code quality: the rubric, each judge's dimensions and weighted score, the panel. */
export const CodeQualityDetailsSchema = z.strictObject({
  rubric: z.strictObject({
    readability: weightPercent,
    architecture: weightPercent,
    robustness: weightPercent,
    idiomaticity: weightPercent,
  }),
  judges: z.array(
    z.strictObject({
      judge: z.string(),
      dimensions: CodeQualityDimensionsSchema,
      score: ExactValueSchema,
    }),
  ),
  panel: PanelSummarySchema,
});

const DeliverableDimensionsSchema = z.strictObject({
  accuracy: percent,
  clarity: percent,
  completeness: percent,
  actionability: percent,
});

/** One deliverable: judged when submitted; 0 without a judge when missing or a placeholder. */
export const DeliverableItemDetailsSchema = z.discriminatedUnion("status", [
  z.strictObject({
    name: z.string(),
    status: z.literal("submitted"),
    judges: z.array(
      z.strictObject({
        judge: z.string(),
        dimensions: DeliverableDimensionsSchema,
        score: ExactValueSchema,
      }),
    ),
    panel: PanelSummarySchema,
    score: ExactValueSchema,
  }),
  z.strictObject({
    name: z.string(),
    status: z.enum(["missing", "placeholder"]),
    score: ExactValueSchema,
  }),
]);

/** Deliverables: the rubric and each deliverable (their mean is the score). */
export const DeliverablesDetailsSchema = z.strictObject({
  rubric: z.strictObject({
    accuracy: weightPercent,
    clarity: weightPercent,
    completeness: weightPercent,
    actionability: weightPercent,
  }),
  items: z.array(DeliverableItemDetailsSchema).min(1),
});

/** One scored finding; the severity is the CWE table's when the CWE is in it. */
export const SecurityFindingDetailsSchema = z.strictObject({
  cwe: z.string().nullable(),
  severity: SeveritySchema,
  rule: z.string().nullable(),
  tool: z.string().nullable(),
  file: z.string().nullable(),
  line: z.number().nullable(),
  deduction: z.number().min(0),
});

/** Security: counts and deductions per severity, every finding, the checks that did not run. */
export const SecurityDetailsSchema = z.strictObject({
  counts: bySeverity(count),
  deductions: bySeverity(z.number().min(0)),
  findings: z.array(SecurityFindingDetailsSchema),
  notMeasured: z.array(z.string()),
});

export const StabilityVerdictSchema = z.enum(["clean", "warnings", "crashed"]);

/** Stability: the verdict and the observations behind it. */
export const StabilityDetailsSchema = z.strictObject({
  verdict: StabilityVerdictSchema,
  evidence: z.array(z.string()),
});

// ─── Agent-run components ───

/** Objective: the engineering composite; its breakdown is the breakdown's `objective`. */
export const ObjectiveDetailsSchema = z.strictObject({
  engineeringRounded: z.int().min(0).max(100),
});

/** Process, Strategy, Recovery: each judge's 0–100 score and the aggregation rule. */
export const JudgedDetailsSchema = z.strictObject({
  judges: z.array(JudgeScoreSchema).min(1),
  rule: AggregationRuleSchema,
  discarded: z.array(z.string()),
});

const RepeatItemSchema = z.strictObject({ seq: z.int(), repeatOf: z.int(), detail: z.string() });

/** The actions behind each efficiency figure: added by the platform, not by the engine. */
export const EfficiencyTraceSchema = z.strictObject({
  totalActions: count,
  unproductive: z.array(
    z.strictObject({
      seq: z.int(),
      rule: z.enum(["failed-tool-call", "test-run-error", "reverted-edit"]),
      detail: z.string(),
    }),
  ),
  retryChurn: z.array(RepeatItemSchema),
  toolMisuse: z.array(RepeatItemSchema),
  tokens: z.strictObject({
    used: z.number().nullable(),
    budget: z.number().nullable(),
    events: count.describe("trace events that reported tokens"),
  }),
});

/** Efficiency: the telemetry counts, their ratios, token burn ("not measured" → nulls). */
export const EfficiencyDetailsSchema = z.strictObject({
  totalActions: z.int().min(1),
  unproductiveActions: count,
  retryChurnActions: count,
  toolMisuseActions: count,
  wasteRatio: ExactValueSchema,
  retryChurnRatio: ExactValueSchema,
  toolMisuseRatio: ExactValueSchema,
  tokensUsed: z.number().nullable().describe("null: no token count (token burn not measured)"),
  tokenBudget: z.number().nullable().describe("null: no budget (token burn not measured)"),
  tokenBudgetRatio: ExactValueSchema.nullable(),
  tokenOveruse: ExactValueSchema.describe("clamp(tokens / budget − 0.5, 0, 1); 0 if not measured"),
  coefficients: z.strictObject({
    wastePenalty: z.number(),
    churnPenalty: z.number(),
    misusePenalty: z.number(),
    tokenPenalty: z.number(),
    tokenFreeShare: z.number(),
  }),
  tokensProvenance: ProvenanceSchema.optional().describe(
    "observed: counted by the platform's metering; self-reported: the trace's own count",
  ),
  trace: EfficiencyTraceSchema.optional().describe(
    "the trace's actions behind each figure, added by the platform's score worker",
  ),
});

// ─── Public view ───

/** A finding as anyone may read it: no location, rule or tool (those are the owner's). */
export const PublicSecurityFindingDetailsSchema = z.strictObject({
  cwe: z.string().nullable(),
  severity: SeveritySchema,
  deduction: z.number().min(0),
});

/** Security in the public view. */
export const PublicSecurityDetailsSchema = z.strictObject({
  counts: bySeverity(count),
  deductions: bySeverity(z.number().min(0)),
  findings: z.array(PublicSecurityFindingDetailsSchema),
  notMeasured: z.array(z.string()),
});

/** Stability in the public view: the observations are counted, not shown. */
export const PublicStabilityDetailsSchema = z.strictObject({
  verdict: StabilityVerdictSchema,
  evidence: z.array(z.string()).max(0),
  evidenceCount: count,
});
