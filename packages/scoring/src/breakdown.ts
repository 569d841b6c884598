/**
 * @module scoring/breakdown
 * The breakdown: the published explanation of a score. Every component shows its inputs,
 * formula, score, weight and contribution; every adjustment its evidence. Pure types, with the
 * tags stored beside them.
 * Invariant: this module owns the shape of everything a breakdown carries (its interval, its
 * pairing profile, its judging summary), so the modules that compute those parts import it and
 * it imports none of them: only the leaf vocabularies (exact, aggregate's types, tables, the
 * profile ids of input.ts).
 */
import type { ExactValue } from "./exact.ts";
import type { AggregationRule } from "./aggregate.ts";
import type { ProfileId, Provenance } from "./input.ts";
import type {
  BandKey,
  CodeQualityDimension,
  DeliverableDimension,
  Severity,
  StabilityVerdict,
  StaticCategory,
} from "./tables.ts";

/** Schema tag of stored breakdowns; bump on any shape change. */
export const BREAKDOWN_SCHEMA = "bouts.breakdown/v1";
/** Method tag of the interval (interval.ts); bump on any change that moves an interval. */
export const INTERVAL_METHOD = "stratified-bootstrap/v1";
/** Method tag of the paired comparison (pairing.ts); bump on any change that moves a verdict. */
export const PAIRING_METHOD = "paired-normal/v1";

/** How a judge panel was aggregated, for display. */
export interface PanelSummary {
  judges: { judge: string; score: ExactValue }[];
  rule: AggregationRule;
  discarded: string[];
  spread: ExactValue;
  degraded: boolean;
  humanReview: boolean;
  note: string | null;
  explanation: string;
  score: ExactValue;
}

// ─── Component details: one shape per component key ───

/** One static-test category: its counts, and its share of the suite against the intended one. */
export interface StaticCategoryDetails {
  passed: number;
  total: number;
  /** Percent of the suite's tests. */
  shareOfSuite: ExactValue;
  /** The intended composition, in percent. */
  intendedShare: number;
}

/** Static tests: the counts, and per category (in the input's order) when reported, else {}. */
export interface StaticDetails {
  passed: number;
  total: number;
  categories: Partial<Record<StaticCategory, StaticCategoryDetails>>;
}

/** Pre-built or generated adversarial tests: how many, and their share of the weight. */
export interface AdversarialOriginDetails {
  tests: number;
  /** Percent of the total severity weight. */
  weightShare: ExactValue;
}

/** Adversarial tests: severity-weighted points, per-severity counts, the composition. */
export interface AdversarialDetails {
  weightedPassed: number;
  weightedTotal: number;
  severityWeights: Record<Severity, number>;
  bySeverity: Record<Severity, { passed: number; total: number }>;
  composition: {
    target: { prebuilt: number; generated: number };
    prebuilt: AdversarialOriginDetails;
    generated: AdversarialOriginDetails;
  };
}

/** One judge's rubric scores and their weighted total. */
export interface RubricJudgement<D extends string> {
  judge: string;
  dimensions: Record<D, number>;
  score: ExactValue;
}

/** Code quality: the rubric, each judge's dimensions, the panel. */
export interface CodeQualityDetails {
  rubric: Record<CodeQualityDimension, number>;
  judges: RubricJudgement<CodeQualityDimension>[];
  panel: PanelSummary;
}

/** One deliverable: judged when submitted; 0 without a judge when missing or a placeholder. */
export type DeliverableItemDetails =
  | {
      name: string;
      status: "submitted";
      judges: RubricJudgement<DeliverableDimension>[];
      panel: PanelSummary;
      score: ExactValue;
    }
  | { name: string; status: "missing" | "placeholder"; score: ExactValue };

/** Deliverables: the rubric and each deliverable (their mean is the score). */
export interface DeliverablesDetails {
  rubric: Record<DeliverableDimension, number>;
  items: DeliverableItemDetails[];
}

/** One scored finding; its severity is the CWE table's when the CWE is in it. */
export interface SecurityFindingDetails {
  cwe: string | null;
  severity: Severity;
  rule: string | null;
  tool: string | null;
  file: string | null;
  line: number | null;
  deduction: number;
}

/** Security: counts and deductions per severity, every finding, the checks that did not run. */
export interface SecurityDetails {
  counts: Record<Severity, number>;
  deductions: Record<Severity, number>;
  findings: SecurityFindingDetails[];
  notMeasured: string[];
}

/** Stability: the verdict and the observations behind it. */
export interface StabilityDetails {
  verdict: StabilityVerdict;
  evidence: string[];
}

/** Objective: the engineering composite, whose breakdown is the breakdown's `objective`. */
export interface ObjectiveDetails {
  engineeringRounded: number;
}

/** Process, Strategy, Recovery: each judge's score and the aggregation rule. */
export interface JudgedDetails {
  judges: { judge: string; score: ExactValue }[];
  rule: AggregationRule;
  discarded: string[];
}

/** A repeated action of the trace, and the earlier action it repeated. */
export interface TraceRepeatDetails {
  seq: number;
  repeatOf: number;
  detail: string;
}

/**
 * The trace's actions behind each efficiency figure. The platform's score worker adds it from
 * its telemetry analysis; the engine never writes it.
 */
export interface EfficiencyTraceDetails {
  totalActions: number;
  unproductive: {
    seq: number;
    rule: "failed-tool-call" | "test-run-error" | "reverted-edit";
    detail: string;
  }[];
  retryChurn: TraceRepeatDetails[];
  toolMisuse: TraceRepeatDetails[];
  tokens: { used: number | null; budget: number | null; events: number };
}

/** Efficiency: the telemetry counts, their ratios, and token burn (nulls when not measured). */
export interface EfficiencyDetails {
  totalActions: number;
  unproductiveActions: number;
  retryChurnActions: number;
  toolMisuseActions: number;
  wasteRatio: ExactValue;
  retryChurnRatio: ExactValue;
  toolMisuseRatio: ExactValue;
  tokensUsed: number | null;
  tokenBudget: number | null;
  tokenBudgetRatio: ExactValue | null;
  tokenOveruse: ExactValue;
  coefficients: {
    wastePenalty: number;
    churnPenalty: number;
    misusePenalty: number;
    tokenPenalty: number;
    tokenFreeShare: number;
  };
  /**
   * Where `tokensUsed` came from: the platform's metering ("observed") or the agent's trace
   * (docs/scoring.md, "Provenance and trust caps"); absent when the input did not say.
   */
  tokensProvenance?: Provenance;
  trace?: EfficiencyTraceDetails;
}

/** The details of each component, by key. */
export interface ComponentDetailsMap {
  static: StaticDetails;
  adversarial: AdversarialDetails;
  codeQuality: CodeQualityDetails;
  deliverables: DeliverablesDetails;
  security: SecurityDetails;
  stability: StabilityDetails;
  objective: ObjectiveDetails;
  process: JudgedDetails;
  strategy: JudgedDetails;
  recovery: JudgedDetails;
  efficiency: EfficiencyDetails;
}

/** The component keys of both profiles. */
export type ComponentKey = keyof ComponentDetailsMap;

/** The details of the component `K`. */
export type DetailsOf<K extends ComponentKey> = ComponentDetailsMap[K];

/** Details of any component. */
export type ComponentDetails = ComponentDetailsMap[ComponentKey];

/**
 * What an agent-run component rests on (docs/scoring.md, "Provenance and trust caps"): seen by
 * the platform, said by the agent, or said and checked; and the cap that followed, if any.
 */
export interface ComponentProvenance {
  kind: Provenance;
  /** What was checked and what it found, as the platform wrote it (may quote the trace). */
  basis: string;
  /** The cap on the component's score, and the score before it; null when uncapped. */
  cap: { max: number; uncapped: ExactValue } | null;
}

/** What an adjustment (integrity, calibration) or one evidence line rests on. */
export interface AdjustmentProvenance {
  kind: Provenance;
  basis: string;
}

/** One weighted component of key `K` (of any key, by default), with that key's details. */
export type ComponentBreakdownOf<K extends ComponentKey = ComponentKey> = {
  [P in K]: {
    key: P;
    label: string;
    /** Weight in percent. */
    weight: number;
    score: ExactValue;
    /** score × weight / 100. */
    contribution: ExactValue;
    /** The formula with this submission's numbers, e.g. "(18 / 20) × 100 = 90". */
    formula: string;
    /** Structured inputs and intermediate figures. */
    details: ComponentDetailsMap[P];
    notes: string[];
    /** What the score rests on; agent-run components of an input that said (absent before). */
    provenance?: ComponentProvenance;
  };
}[K];

/** One weighted component, its `details` told apart by `key`. */
export type ComponentBreakdown = ComponentBreakdownOf;

/** A named change after the weighted sum: a cap, a bounded adjustment, a clamp. */
export interface AdjustmentBreakdown {
  key: "critical-cap" | "integrity" | "exploits" | "calibration" | "clamp";
  label: string;
  /** The signed change this adjustment made to the score. */
  points: ExactValue;
  detail: string;
  evidence: EvidenceLine[];
  /** What the adjustment rests on (integrity, calibration of an input that said). */
  provenance?: AdjustmentProvenance;
}

/** One cited observation behind an adjustment, and who made it when the input said. */
export interface EvidenceLine {
  item: string;
  points: number | null;
  citation: string;
  provenance?: Provenance;
}

/** Something a reader or a reviewer should notice. */
export interface Flag {
  code:
    | "human-review"
    | "degraded-panel"
    | "security-partially-measured"
    | "severity-from-cwe-table"
    | "evidence-not-scored"
    | "heuristic-judges";
  component: string | null;
  message: string;
}

/** The whole published explanation of one score. */
export interface Breakdown {
  schema: typeof BREAKDOWN_SCHEMA;
  profile: ProfileId;
  profileVersion: number;
  family: string | null;
  components: ComponentBreakdown[];
  /** Σ contributions, before adjustments. */
  weightedSum: ExactValue;
  adjustments: AdjustmentBreakdown[];
  final: { unrounded: ExactValue; rounded: number };
  /**
   * The 95 % interval of the final score (docs/scoring.md, "Score interval"), when the caller
   * passed a seed; the platform always does. Absent from breakdowns stored before intervals.
   */
  interval?: ScoreInterval;
  /**
   * The verdicts on the shared tests for the board's paired comparison (docs/scoring.md,
   * "Paired comparison"), when the input listed its static tests; the platform's does.
   */
  pairing?: PairingProfile;
  band: { key: BandKey; label: string; min: number; max: number; meaning: string };
  flags: Flag[];
  /** Who graded the judged components: the heuristic panel or models (docs/judges.md). */
  judging: JudgingSummary;
  /** The computation as plain lines, top to bottom. */
  math: string[];
  /** For the agent profile: the engineering breakdown its Objective came from. */
  objective: ObjectiveBreakdown | null;
}

/** A breakdown that nests none: the engineering profile's, also as an agent run's Objective. */
export type ObjectiveBreakdown = Omit<Breakdown, "objective"> & { objective: null };

// ─── The parts a breakdown carries, computed by interval.ts, pairing.ts, judging.ts ───

/** The 95 % interval of a final score and how it was drawn. */
export interface ScoreInterval {
  /** Confidence level, percent. */
  level: number;
  /** Lower end (unrounded final-score scale, 0–100). */
  low: ExactValue;
  /** Upper end. */
  high: ExactValue;
  method: typeof INTERVAL_METHOD;
  prng: "xoshiro128**";
  /** The seed the stream was drawn from; `npm run score -- --seed <seed>` reproduces it. */
  seed: string;
  replicates: number;
  /** What varied between replicates, e.g. "static: 20 tests in 3 categories". */
  resampled: string[];
  /** What entered every replicate unchanged, e.g. "security (no variation between runs)". */
  fixed: string[];
  /** True when the percentile interval missed the point estimate and was widened to it. */
  widenedToPoint: boolean;
}

/** One stratum of shared tests: `n` tests, one bit each, every passed test worth `coef` points. */
export interface PairingStratum {
  /** `static:<category>` or `adversarial:<severity>` (pre-built tests only). */
  key: string;
  n: number;
  /** Final-score points one passed test of the stratum is worth. */
  coef: number;
  /** Verdicts in ascending test-id order, 4 per hex digit, first test in the high bit. */
  passed: string;
}

/** What a score's paired comparison needs, stored with its breakdown (`breakdown.pairing`). */
export interface PairingProfile {
  method: typeof PAIRING_METHOD;
  /** Digest of the shared tests' ids by stratum: equal digests, the same suite. */
  suite: string;
  strata: PairingStratum[];
  /** Variance (points²) of what the two scores do not share: judges, generated tests. */
  ownVariance: number;
}

/** One judge of a breakdown, with what it graded. */
export interface JudgeIdentity {
  judge: string;
  /** "unspecified" when the input did not say (a hand-written input, for instance). */
  kind: "heuristic" | "model" | "unspecified";
  provider: string | null;
  model: string | null;
  /** The heuristic panel's method (where it is documented); null for models. */
  method: string | null;
  /** The components this judge graded, in breakdown order. */
  components: string[];
}

/** The judges behind a breakdown: "heuristic", "model", "mixed" or "unspecified". */
export interface JudgingSummary {
  panel: "heuristic" | "model" | "mixed" | "unspecified";
  judges: JudgeIdentity[];
  /** One sentence a reader sees first: who graded this score. */
  summary: string;
}
