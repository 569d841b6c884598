/**
 * @module scoring/compose
 * Shared last steps of both profiles: weighting a component, clamping, half-up rounding,
 * the band, and the plain-text math. Pure.
 */
import type {
  BREAKDOWN_SCHEMA,
  AdjustmentBreakdown,
  Breakdown,
  ComponentBreakdown,
  ComponentBreakdownOf,
  ComponentKey,
  ComponentProvenance,
  DetailsOf,
  Flag,
  JudgingSummary,
  ObjectiveBreakdown,
} from "./breakdown.ts";
import { Exact, toExactValue } from "./exact.ts";
import { BANDS, type Band } from "./tables.ts";

/** A component score before weighting (see engineering.ts ComponentScore). */
interface Scored<D> {
  score: Exact;
  formula: string;
  details: D;
  notes: string[];
  /** What the score rests on (agent-run components of an input that said), after `notes`. */
  provenance?: ComponentProvenance;
}

/** Weighs a component: contribution = score × weight / 100. */
export function weighComponent<K extends ComponentKey>(
  key: K,
  label: string,
  weight: number,
  c: Scored<DetailsOf<K>>,
): ComponentBreakdownOf<K> {
  const contribution = c.score.mul(Exact.of(weight)).div(Exact.HUNDRED);
  return {
    key,
    label,
    weight,
    score: toExactValue(c.score),
    contribution: toExactValue(contribution),
    formula: c.formula,
    details: c.details,
    notes: c.notes,
    ...(c.provenance ? { provenance: c.provenance } : {}),
  };
}

/**
 * The interpretation band of a score: the composite spec bands the score rounded half up, so
 * 89.5 is Elite and 89.4999 Strong. The one band lookup of the platform (breakdowns, boards,
 * pages, webhooks).
 * @example resolveBand(89.5).key // "elite"
 */
export function resolveBand(score: number): Band {
  // Math.round rounds halves toward +∞: half up for every score the engine produces (0–100).
  const rounded = Math.round(score);
  return BANDS.find((b) => rounded >= b.min) ?? BANDS[BANDS.length - 1]!;
}

interface FinishInput<O extends ObjectiveBreakdown | null> {
  schema: typeof BREAKDOWN_SCHEMA;
  profile: Breakdown["profile"];
  profileVersion: number;
  family: string | null;
  components: ComponentBreakdown[];
  weighted: Exact;
  adjustments: AdjustmentBreakdown[];
  /** Score after adjustments, before the final clamp. */
  total: Exact;
  flags: Flag[];
  judging: JudgingSummary;
  objective: O;
}

/** Clamps to 0–100, rounds half-up, picks the band and writes the math. */
export function finish<O extends ObjectiveBreakdown | null>(
  f: FinishInput<O>,
): Breakdown & { objective: O } {
  const adjustments = [...f.adjustments];
  const clamped = f.total.clamp(Exact.ZERO, Exact.HUNDRED);
  if (!clamped.eq(f.total))
    adjustments.push({
      key: "clamp",
      label: "Clamp to 0–100",
      points: toExactValue(clamped.sub(f.total)),
      detail: `max(0, min(100, ${f.total.toText()})) = ${clamped.toText()}`,
      evidence: [],
    });
  const rounded = Number(clamped.roundHalfUp());
  const band = resolveBand(rounded);
  const width = Math.max(...f.components.map((c) => c.label.length));
  const math = [
    ...f.components.map((c) => `${c.label.padEnd(width)}  ${c.formula}`),
    "",
    ...f.components.map(
      (c, i) =>
        `${i === 0 ? "  " : "+ "}${c.score.text} × ${c.weight}%`.padEnd(24) +
        `= ${c.contribution.text}`,
    ),
    `= ${f.weighted.toText()}`,
    ...adjustments.map((a) => `${a.label}: ${signed(a.points.text)} (${a.detail})`),
    `final ${clamped.toText()} → rounded half-up → ${rounded} (${band.label})`,
  ];
  return {
    schema: f.schema,
    profile: f.profile,
    profileVersion: f.profileVersion,
    family: f.family,
    components: f.components,
    weightedSum: toExactValue(f.weighted),
    adjustments,
    final: { unrounded: toExactValue(clamped), rounded },
    band: { key: band.key, label: band.label, min: band.min, max: band.max, meaning: band.meaning },
    flags: f.flags,
    judging: f.judging,
    math,
    objective: f.objective,
  };
}

const signed = (text: string): string => (text.startsWith("-") ? `−${text.slice(1)}` : `+${text}`);
