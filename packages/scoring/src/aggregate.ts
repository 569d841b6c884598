/**
 * @module scoring/aggregate
 * The engineering spec's three-judge aggregation (docs/design.md §2), generalized only where the
 * engineering spec is silent (panels of other sizes). Pure; the result never depends on the judges'
 * order.
 */
import { Exact } from "./exact.ts";
import { JUDGE_AGREEMENT_SPREAD, JUDGE_AMBIGUITY_PENALTY, JUDGE_PANEL_SIZE } from "./tables.ts";

/** Which branch of the aggregation produced the score. */
export type AggregationRule = "median" | "outlier-discarded" | "ambiguity-penalty" | "single-judge";

/** One judge's score on a 0–100 scale. */
export interface PanelScore {
  judge: string;
  score: Exact;
}

/** The aggregated score and how it was reached. */
export interface PanelResult {
  score: Exact;
  rule: AggregationRule;
  /** Judges set aside as outliers. */
  discarded: string[];
  spread: Exact;
  /** Fewer valid judgements than the panel size. */
  degraded: boolean;
  humanReview: boolean;
  note: string | null;
  /** The computation in words, e.g. "spread 8 ≤ 15 → median(68, 72, 76) = 72". */
  explanation: string;
}

const SPREAD = Exact.of(JUDGE_AGREEMENT_SPREAD);
const PENALTY = Exact.of(JUDGE_AMBIGUITY_PENALTY);
const AMBIGUITY_NOTE = "Judges couldn't agree — code may be confusing or unconventional";

const mean = (xs: readonly Exact[]): Exact => Exact.sum(xs).div(Exact.of(xs.length));
const list = (xs: readonly Exact[]): string => xs.map((x) => x.toText()).join(", ");

const median = (sorted: readonly Exact[]): Exact => {
  const mid = Math.floor(sorted.length / 2);
  const hi = sorted[mid] ?? Exact.ZERO;
  return sorted.length % 2 === 1 ? hi : hi.add(sorted[mid - 1] ?? hi).div(Exact.of(2));
};

/** The decision of the aggregation, before it is put into words. */
interface Decision {
  score: Exact;
  rule: AggregationRule;
  sorted: PanelScore[];
  values: Exact[];
  spread: Exact;
  outlier: PanelScore | null;
  rest: Exact[];
  avg: Exact | null;
}

/** The aggregation's arithmetic alone (aggregatePanel words it; the score interval reuses it). */
function decide(scores: readonly PanelScore[]): Decision {
  const sorted = [...scores].sort((a, b) => a.score.cmp(b.score) || (a.judge < b.judge ? -1 : 1));
  const values = sorted.map((s) => s.score);
  const lowest = values[0] ?? Exact.ZERO;
  const highest = values[values.length - 1] ?? Exact.ZERO;
  const spread = highest.sub(lowest);
  const base = { sorted, values, spread, outlier: null, rest: [], avg: null };
  if (scores.length === 1) return { ...base, score: lowest, rule: "single-judge" };
  if (spread.cmp(SPREAD) <= 0) return { ...base, score: median(values), rule: "median" };
  const outliers = sorted.filter((s) =>
    sorted.every((o) => o === s || s.score.sub(o.score).abs().cmp(SPREAD) > 0),
  );
  const outlier = outliers[0];
  if (outliers.length === 1 && outlier && scores.length >= JUDGE_PANEL_SIZE) {
    const rest = sorted.filter((s) => s !== outlier).map((s) => s.score);
    return { ...base, score: mean(rest), rule: "outlier-discarded", outlier, rest };
  }
  const avg = mean(values);
  const score = avg.sub(PENALTY).clamp(Exact.ZERO, Exact.HUNDRED);
  return { ...base, score, rule: "ambiguity-penalty", avg };
}

/**
 * The aggregated score of a panel alone — exactly aggregatePanel's `score`, without the words.
 * Requires at least one score.
 */
export function aggregateScore(scores: readonly PanelScore[]): Exact {
  if (scores.length === 0) throw new RangeError("aggregateScore needs at least one score");
  return decide(scores).score;
}

/**
 * Aggregates a panel: spread ≤ 15 → median; exactly one judge more than 15 from every other
 * → mean of the rest; otherwise → mean − 10 (clamped at 0) with a human-review flag. A panel
 * smaller than three is degraded and flagged for review. Requires at least one score.
 * @example aggregatePanel([72, 68, 76].map((s, i) => ({ judge: `j${i}`, score: Exact.of(s)
 * }))).score // 72
 */
export function aggregatePanel(scores: readonly PanelScore[]): PanelResult {
  if (scores.length === 0) throw new RangeError("aggregatePanel needs at least one score");
  const d = decide(scores);
  const { score, spread, values } = d;
  const degraded = scores.length < JUDGE_PANEL_SIZE;
  const base = { score, rule: d.rule, spread, degraded, discarded: [] as string[] };
  switch (d.rule) {
    case "single-judge":
      return {
        ...base,
        humanReview: true,
        note: "Only one judge returned a valid judgement",
        explanation: `one judge → ${score.toText()}`,
      };
    case "median":
      return {
        ...base,
        humanReview: degraded,
        note: null,
        explanation: `spread ${spread.toText()} ≤ ${JUDGE_AGREEMENT_SPREAD} → median(${list(values)}) = ${score.toText()}`,
      };
    case "outlier-discarded": {
      const outlier = d.outlier!;
      return {
        ...base,
        discarded: [outlier.judge],
        humanReview: degraded,
        note: null,
        explanation: `spread ${spread.toText()} > ${JUDGE_AGREEMENT_SPREAD}; ${outlier.judge} (${outlier.score.toText()}) is more than ${JUDGE_AGREEMENT_SPREAD} from every other judge → mean(${list(d.rest)}) = ${score.toText()}`,
      };
    }
    case "ambiguity-penalty": {
      const avg = d.avg!;
      return {
        ...base,
        humanReview: true,
        note: AMBIGUITY_NOTE,
        explanation: `spread ${spread.toText()} > ${JUDGE_AGREEMENT_SPREAD} with no single outlier → mean(${list(values)}) − ${JUDGE_AMBIGUITY_PENALTY} = ${avg.toText()} − ${JUDGE_AMBIGUITY_PENALTY} = ${score.toText()}${avg.sub(PENALTY).isNegative() ? " (clamped at 0)" : ""}`,
      };
    }
  }
}
