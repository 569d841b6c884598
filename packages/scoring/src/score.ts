/**
 * @module scoring/score
 * One entry point for every profile: the input's `profile` picks its registry entry
 * (profiles/registry.ts), which computes the breakdown; the pairing profile and the interval
 * follow. Pure.
 */
import type { Breakdown } from "./breakdown.ts";
import type { ProfileId, ScoreInput } from "./input.ts";
import { ok, type Result } from "@bouts/result";
import type { ScoringError } from "./errors.ts";
import { computeInterval, type IntervalOptions } from "./interval.ts";
import { computePairingProfile } from "./pairing.ts";
import type { InputOf } from "./profiles/profile.ts";
import { isProfileId, scoringProfileOf, unknownProfile } from "./profiles/registry.ts";

/** Options of {@link computeScore}. */
export interface ScoreOptions {
  /** Draw the 95 % interval with this seed (docs/scoring.md, "Score interval"). */
  interval?: IntervalOptions;
}

/** The entry of `id` computes `input` (which it validates field by field, its tag included). */
const computeAs = <K extends ProfileId>(id: K, input: InputOf<K>) =>
  scoringProfileOf(id).compute(input);

/**
 * Computes the breakdown for an input of any profile, or a typed error naming the field.
 * With `options.interval`, the breakdown (and its nested Objective) carries its 95 % interval;
 * with per-test verdicts in `static.tests`, its pairing profile for the board.
 * @example computeScore(input, { interval: { seed: "submission:01J…" } }).value.interval
 */
export function computeScore(
  input: ScoreInput,
  options: ScoreOptions = {},
): Result<Breakdown, ScoringError> {
  const profile = (input as { profile?: unknown } | null)?.profile;
  if (!isProfileId(profile)) return unknownProfile(profile);
  const scored = computeAs(profile, input as InputOf<typeof profile>);
  if (!scored.ok) return scored;
  const pairing = computePairingProfile(input, scored.value);
  if (!pairing.ok) return pairing;
  const b = pairing.value ? { ...scored.value, pairing: pairing.value } : scored.value;
  return options.interval ? withInterval(b, options.interval) : ok(b);
}

/** Attaches the 95 % interval to a breakdown (and to its nested Objective). */
export function withInterval(
  b: Breakdown,
  options: IntervalOptions,
): Result<Breakdown, ScoringError> {
  const drawn = computeInterval(b, options);
  if (!drawn.ok) return drawn;
  const { interval, objective } = drawn.value;
  return ok({
    ...b,
    interval,
    objective: b.objective && objective ? { ...b.objective, interval: objective } : b.objective,
  });
}
