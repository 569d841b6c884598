/**
 * @module scoring/breakdown
 * The breakdown: the published explanation of a score. Every component shows its inputs,
 * formula, score, weight and contribution; every adjustment its evidence. Pure types.
 */
import type { ExactValue } from "./exact.ts";
import type { AggregationRule } from "./aggregate.ts";
import type { BandKey } from "./tables.ts";

/** Schema tag of stored breakdowns; bump on any shape change. */
export const BREAKDOWN_SCHEMA = "bouts.breakdown/v1";

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

/** One weighted component. */
export interface ComponentBreakdown {
  key: string;
  label: string;
  /** Weight in percent. */
  weight: number;
  score: ExactValue;
  /** score × weight / 100. */
  contribution: ExactValue;
  /** The formula with this submission's numbers, e.g. "(18 / 20) × 100 = 90". */
  formula: string;
  /** Structured inputs and intermediate figures. */
  details: Record<string, unknown>;
  notes: string[];
}

/** A named change after the weighted sum: a cap, a bounded adjustment, a clamp. */
export interface AdjustmentBreakdown {
  key: "critical-cap" | "integrity" | "exploits" | "calibration" | "clamp";
  label: string;
  /** The signed change this adjustment made to the score. */
  points: ExactValue;
  detail: string;
  evidence: { item: string; points: number | null; citation: string }[];
}

/** Something a reader or a reviewer should notice. */
export interface Flag {
  code:
    | "human-review"
    | "degraded-panel"
    | "security-partially-measured"
    | "severity-from-cwe-table"
    | "evidence-not-scored";
  component: string | null;
  message: string;
}

/** The whole published explanation of one score. */
export interface Breakdown {
  schema: typeof BREAKDOWN_SCHEMA;
  profile: "engineering" | "agent";
  profileVersion: number;
  family: string | null;
  components: ComponentBreakdown[];
  /** Σ contributions, before adjustments. */
  weightedSum: ExactValue;
  adjustments: AdjustmentBreakdown[];
  final: { unrounded: ExactValue; rounded: number };
  band: { key: BandKey; label: string; min: number; max: number; meaning: string };
  flags: Flag[];
  /** The computation as plain lines, top to bottom. */
  math: string[];
  /** For the agent profile: the engineering breakdown its Objective came from. */
  objective: Breakdown | null;
}
