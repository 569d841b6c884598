/**
 * @module scoring/weights
 * Family weights and the validator for custom overrides (docs/design.md §6). Pure.
 */
import { err, ok, type Result } from "@bouts/result";
import type { ScoringError } from "./errors.ts";
import {
  AGENT_COMPONENTS,
  FAMILY_WEIGHTS,
  WEIGHT_RULES,
  type AgentWeights,
  type Family,
} from "./tables.ts";

/** The weights a family uses, exactly as the agent-run spec tables them. */
export const resolveFamilyWeights = (family: Family): AgentWeights => ({
  ...FAMILY_WEIGHTS[family],
});

/**
 * Checks a custom override against every rule and names the first one broken: whole
 * percents; every component ≥ 5; Objective ≥ 30 and ≥ every other component; Efficiency ≥ 5;
 * sum within 90–100.
 * @example validateCustomWeights({ objective: 25, process: 20, strategy: 20, recovery: 20,
 * efficiency: 10 })
 *   // { ok: false, error: { reason: "weight-rule", rule: "objective-minimum", … } }
 */
export function validateCustomWeights(weights: unknown): Result<AgentWeights, ScoringError> {
  const refuse = (rule: Extract<ScoringError, { reason: "weight-rule" }>["rule"], detail: string) =>
    err<ScoringError>({ reason: "weight-rule", rule, detail });
  if (typeof weights !== "object" || weights === null)
    return refuse("whole-percent", "weights must be an object of five whole percents");
  const w = weights as Record<string, unknown>;
  const extra = Object.keys(w).find((k) => !(AGENT_COMPONENTS as readonly string[]).includes(k));
  if (extra) return refuse("whole-percent", `unknown component ${JSON.stringify(extra)}`);
  for (const c of AGENT_COMPONENTS) {
    const v = w[c];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 100)
      return refuse(
        "whole-percent",
        `${c} must be a whole percent 0–100, got ${JSON.stringify(v)}`,
      );
  }
  const ok5 = w as AgentWeights;
  for (const c of AGENT_COMPONENTS)
    if (ok5[c] < WEIGHT_RULES.componentMinimum)
      return refuse(
        c === "efficiency" ? "efficiency-minimum" : "component-minimum",
        `${c} is ${ok5[c]}%; no component may fall below ${WEIGHT_RULES.componentMinimum}%`,
      );
  if (ok5.objective < WEIGHT_RULES.objectiveMinimum)
    return refuse(
      "objective-minimum",
      `objective is ${ok5.objective}%; it must be at least ${WEIGHT_RULES.objectiveMinimum}%`,
    );
  const larger = AGENT_COMPONENTS.find((c) => c !== "objective" && ok5[c] > ok5.objective);
  if (larger)
    return refuse(
      "objective-largest",
      `${larger} (${ok5[larger]}%) exceeds objective (${ok5.objective}%); objective must stay the largest`,
    );
  const sum = AGENT_COMPONENTS.reduce((s, c) => s + ok5[c], 0);
  if (sum < WEIGHT_RULES.sumMin || sum > WEIGHT_RULES.sumMax)
    return refuse(
      "sum-range",
      `weights sum to ${sum}%; they must sum to ${WEIGHT_RULES.sumMin}–${WEIGHT_RULES.sumMax}%`,
    );
  return ok({ ...ok5 });
}
