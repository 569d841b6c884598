/**
 * @module scoring/score
 * One entry point for both profiles. Pure.
 */
import { computeAgent } from "./agent.ts";
import type { Breakdown } from "./breakdown.ts";
import { computeEngineering } from "./engineering.ts";
import type { AgentInput, EngineeringInput, ScoreInput } from "./input.ts";
import { ok, type Result } from "@bouts/result";
import { invalid, type ScoringError } from "./errors.ts";
import { computeInterval, type IntervalOptions } from "./interval.ts";
import { computePairingProfile } from "./pairing.ts";

/** Options of {@link computeScore}. */
export interface ScoreOptions {
  /** Draw the 95 % interval with this seed (docs/scoring.md, "Score interval"). */
  interval?: IntervalOptions;
}

/**
 * Computes the breakdown for an input of either profile, or a typed error naming the field.
 * With `options.interval`, the breakdown (and its nested Objective) carries its 95 % interval;
 * with per-test verdicts in `static.tests`, its pairing profile for the board.
 * @example computeScore(input, { interval: { seed: "submission:01J…" } }).value.interval
 */
export function computeScore(
  input: ScoreInput,
  options: ScoreOptions = {},
): Result<Breakdown, ScoringError> {
  const profile = (input as { profile?: unknown } | null)?.profile;
  let scored: Result<Breakdown, ScoringError>;
  if (profile === "engineering") scored = computeEngineering(input as EngineeringInput);
  else if (profile === "agent") scored = computeAgent(input as AgentInput);
  else
    return invalid(
      "profile",
      `must be "engineering" or "agent", got ${JSON.stringify(profile ?? null)}`,
    );
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
