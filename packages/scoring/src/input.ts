/**
 * @module scoring/input
 * The engine's input shapes, one per profile; their `profile` tags are the profile ids. The
 * engine re-validates every value it reads (pure callers can pass anything); the zod schemas in
 * @bouts/contracts mirror these types at the wire.
 */
import type {
  CodeQualityDimension,
  DeliverableDimension,
  ExploitTrigger,
  Family,
  IntegrityTrigger,
  Severity,
  StabilityVerdict,
  StaticCategory,
  AgentWeights,
} from "./tables.ts";

/** Where a judgement came from: static analysis (the heuristic panel) or a named model. */
export type JudgeProvenance =
  { kind: "heuristic"; method: string } | { kind: "model"; provider: string; model: string };

/** One static test's verdict by its suite id (the score worker lists them for pairing). */
export interface StaticTestVerdict {
  id: string;
  category: StaticCategory;
  passed: boolean;
}

/** Passed and total test counts. */
export interface TestCounts {
  passed: number;
  total: number;
}

/** A code-quality judgement: the four rubric dimensions, each 0–100. */
export interface CodeQualityJudgement {
  judge: string;
  /** Who the judge is; changes no number, shown in the breakdown's `judging`. */
  provenance?: JudgeProvenance;
  dimensions: Record<CodeQualityDimension, number>;
}

/** A deliverable judgement: the four rubric dimensions, each 0–100. */
export interface DeliverableJudgement {
  judge: string;
  provenance?: JudgeProvenance;
  dimensions: Record<DeliverableDimension, number>;
}

/** One required deliverable. Missing or placeholder deliverables score 0 without judges. */
export interface DeliverableInput {
  name: string;
  status: "submitted" | "missing" | "placeholder";
  judges?: DeliverableJudgement[];
}

/** One adversarial test outcome. */
export interface AdversarialTestInput {
  id: string;
  severity: Severity;
  origin: "prebuilt" | "generated";
  passed: boolean;
}

/** One security finding (see @bouts/contracts FindingSchema). */
export interface FindingInput {
  cwe?: string | null;
  severity: Severity;
  rule?: string;
  tool?: string;
  file?: string;
  line?: number;
  message?: string;
}

/** Everything the engineering profile scores. */
export interface EngineeringInput {
  profile: "engineering";
  static: TestCounts & {
    categories?: Partial<Record<StaticCategory, TestCounts>>;
    /** Per-test verdicts (ids are the suite's), for the board's paired comparison only. */
    tests?: StaticTestVerdict[];
  };
  adversarial: { tests: AdversarialTestInput[] };
  codeQuality: { judges: CodeQualityJudgement[] };
  deliverables: { items: DeliverableInput[] };
  security: { findings: FindingInput[]; notMeasured?: string[] };
  stability: { verdict: StabilityVerdict; evidence?: string[] };
}

/** A judge's 0–100 score for one agent-run component (process, strategy, recovery). */
export interface ScoreJudgement {
  judge: string;
  provenance?: JudgeProvenance;
  score: number;
}

/** Summary figures of the agent's telemetry trace (docs/design.md §11). */
export interface EfficiencyInput {
  totalActions: number;
  unproductiveActions: number;
  retryChurnActions: number;
  toolMisuseActions: number;
  tokensUsed?: number | null;
  tokenBudget?: number | null;
  /** Where `tokensUsed` comes from: the metering gateway ("observed") or the trace. */
  tokensProvenance?: Provenance;
}

/** A stated confidence and whether it turned out right (docs/design.md §9). */
export interface CalibrationClaimInput {
  id: string;
  /** Probability in [0, 1], or "uncertain" for an explicit hedge. */
  confidence: number | "uncertain";
  correct: boolean;
  basis?: string;
}

/** A cited observation keyed by a trigger the engine knows. */
export interface EvidenceInput<T extends string> {
  trigger: T;
  citation: string;
  count?: number;
  /** Who saw it: the platform (runner, gateway, records) or the agent's own trace. */
  provenance?: Provenance;
}

/**
 * What a figure rests on (docs/telemetry.md, "What the platform vouches for"): seen by the
 * platform itself, said by the agent, or said by the agent and checked against what the platform
 * saw.
 */
export type Provenance = "observed" | "self-reported" | "cross-checked";

/** How far the platform vouches for one trace-based component, and the cap that follows. */
export interface ComponentTrust {
  provenance: Provenance;
  /**
   * The most the component may score (0–100) because what it rests on was contradicted by the
   * platform or could not be checked (`TRUST_CAPS`); null when uncapped.
   */
  cap: number | null;
  /** What was checked and what it found, with the numbers; shown in the breakdown. */
  basis: string;
}

/** The provenance of every agent-run figure the run itself did not produce. */
export interface AgentTrust {
  process: ComponentTrust;
  strategy: ComponentTrust;
  recovery: ComponentTrust;
  efficiency: ComponentTrust;
  integrity: { provenance: Provenance; basis: string };
  calibration: { provenance: Provenance; basis: string };
}

/** Everything the agent-run profile scores. Objective is the engineering input of the same submission. */
export interface AgentInput {
  profile: "agent";
  family: Family;
  customWeights?: AgentWeights | null;
  objective: EngineeringInput;
  process: { judges: ScoreJudgement[] };
  strategy: { judges: ScoreJudgement[] };
  recovery: { judges: ScoreJudgement[] };
  efficiency: EfficiencyInput | null;
  integrity: EvidenceInput<IntegrityTrigger>[];
  exploits: EvidenceInput<ExploitTrigger>[];
  calibration: { claims: CalibrationClaimInput[] };
  /**
   * What the trace-based figures rest on and their caps. Absent in inputs stored before the
   * platform cross-checked traces: every figure then reads as self-reported and uncapped.
   */
  trust?: AgentTrust;
}

/**
 * Input for any profile: one member per profile, told apart by `profile`. A member added here
 * is a new profile id, and the registry (profiles/registry.ts) does not compile until it has
 * that profile's entry.
 */
export type ScoreInput = EngineeringInput | AgentInput;

/** The id of a scoring profile ("engineering", "agent"): the `profile` of its input. */
export type ProfileId = ScoreInput["profile"];
