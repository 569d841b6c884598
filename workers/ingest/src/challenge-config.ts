/**
 * @module ingest/challenge-config
 * A challenge's scoring configuration: profile, family and custom weights, checked by the
 * engine's own validator so the API and the engine can never disagree on a rule.
 */
import { AgentWeightsSchema } from "@bouts/contracts";
import { validateCustomWeights } from "@bouts/scoring";
import { ChallengeLimitsBodySchema, type ChallengeLimitsBody } from "./schemas.ts";
import { fail } from "./errors.ts";

type Weights = NonNullable<ReturnType<typeof parseStoredWeights>>;

/** Checks custom weights with the engine; 422 naming the broken rule. */
export function checkCustomWeights(weights: Weights | null): void {
  if (weights === null) return;
  const r = validateCustomWeights(weights);
  if (r.ok) return;
  const e = r.error;
  fail(
    e.reason === "weight-rule"
      ? { reason: "weight-rule", rule: e.rule, detail: e.detail }
      : { reason: "unprocessable", detail: e.detail },
  );
}

/** Reads stored custom weights (validated before they were written). */
export function parseStoredWeights(json: string | null) {
  return json === null ? null : AgentWeightsSchema.parse(JSON.parse(json));
}

/** Reads stored limits (validated before they were written). */
export function parseStoredLimits(json: string): ChallengeLimitsBody {
  return ChallengeLimitsBodySchema.parse(JSON.parse(json));
}
