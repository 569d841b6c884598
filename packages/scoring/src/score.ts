/**
 * @module scoring/score
 * One entry point for both profiles. Pure.
 */
import { computeAgent } from "./agent.ts";
import type { Breakdown } from "./breakdown.ts";
import { computeEngineering } from "./engineering.ts";
import type { AgentInput, EngineeringInput, ScoreInput } from "./input.ts";
import type { Result } from "@bouts/result";
import { invalid, type ScoringError } from "./errors.ts";

/**
 * Computes the breakdown for an input of either profile, or a typed error naming the field.
 * @example computeScore(input).ok && computeScore(input).value.final.rounded
 */
export function computeScore(input: ScoreInput): Result<Breakdown, ScoringError> {
  const profile = (input as { profile?: unknown } | null)?.profile;
  if (profile === "engineering") return computeEngineering(input as EngineeringInput);
  if (profile === "agent") return computeAgent(input as AgentInput);
  return invalid(
    "profile",
    `must be "engineering" or "agent", got ${JSON.stringify(profile ?? null)}`,
  );
}
