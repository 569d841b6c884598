/**
 * @module scoring/interval
 * The 95 % interval of a final score (docs/scoring.md, "Score interval"; docs/design.md §22):
 * a seeded, stratified bootstrap of what the score is made of — static tests within their
 * categories, adversarial tests within their severities (so each keeps its weight), the judges
 * of each panel — with every replicate put through the engine's own exact formula (weights,
 * judge aggregation, the critical cap, adjustments, the clamp). Components without variation
 * (security, stability, efficiency, a missing deliverable, the agent's own claims and trace)
 * enter every replicate unchanged. The breakdown's profile says what is resampled (its
 * registry entry's interval hook, profiles/); bootstrap.ts draws it. Pure and deterministic:
 * the caller passes the seed.
 */
import { ok, type Result } from "@bouts/result";
import type { Breakdown } from "./breakdown.ts";
import {
  drawIntervals,
  INTERVAL_REPLICATES,
  modelArithmetic,
  type BreakdownIntervals,
  type IntervalModel,
} from "./bootstrap.ts";
import { invalid, type ScoringError } from "./errors.ts";
import { isProfileId, scoringProfileOf, unknownProfile } from "./profiles/registry.ts";

export { INTERVAL_LEVEL, INTERVAL_REPLICATES, type BreakdownIntervals } from "./bootstrap.ts";

/**
 * The platform's seed for a submission's interval: `submission:<id>`. The id is the server's
 * (a random UUID drawn at submission, not chosen by the agent), so nothing an agent submits picks its own draw.
 * @example submissionSeed("01JABC") // "submission:01JABC"
 */
export const submissionSeed = (submissionId: string): string => `submission:${submissionId}`;

/** How to draw the interval: the seed (derived by the caller, e.g. from the submission id). */
export interface IntervalOptions {
  seed: string;
  /** Replicates; 100–100 000, default {@link INTERVAL_REPLICATES}. */
  replicates?: number;
}

/** What the breakdown's profile resamples, or why it has no profile the engine knows. */
function modelOf(b: Breakdown): Result<IntervalModel, ScoringError> {
  return isProfileId(b.profile)
    ? ok(scoringProfileOf(b.profile).interval(b))
    : unknownProfile(b.profile);
}

/**
 * Which arithmetic a breakdown's replicates use: exact integers in doubles while every sum
 * stays below 2⁵³, bigints beyond (both exact; for tests and benchmarks).
 */
export function replicateArithmetic(b: Breakdown): "double" | "bigint" {
  const model = modelOf(b);
  if (!model.ok) throw new TypeError(model.error.detail);
  return modelArithmetic(model.value);
}

/**
 * Draws the 95 % interval of a breakdown's final score (and of its Objective's) from the
 * breakdown itself: everything it resamples is published in the breakdown, so a stored
 * breakdown can be re-checked. Same breakdown + same seed → same interval.
 * @example computeInterval(breakdown, { seed: "submission:01J…" }).value.interval.low.text
 */
export function computeInterval(
  b: Breakdown,
  options: IntervalOptions,
): Result<BreakdownIntervals, ScoringError> {
  if (typeof options.seed !== "string" || options.seed.length === 0 || options.seed.length > 200)
    return invalid("interval.seed", "must be a string of 1 to 200 characters");
  const replicates = options.replicates ?? INTERVAL_REPLICATES;
  if (!Number.isInteger(replicates) || replicates < 100 || replicates > 100_000)
    return invalid("interval.replicates", "must be an integer from 100 to 100000");
  const model = modelOf(b);
  if (!model.ok) return model;
  return ok(drawIntervals(b, model.value, options.seed, replicates));
}
