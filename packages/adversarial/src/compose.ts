/**
 * @module adversarial/compose
 * Merging what two generators produced into one generated share. Model-written tests (already
 * checked against the reference) come first, in the model's order; the deterministic tests fill
 * what is left of the budget in their seeded selection order. The merge never looks at which
 * tests passed, so it cannot favour or punish a submission. Pure.
 */
import type { AdversarialTestResult } from "@bouts/contracts";
import { weightHalves } from "./budget.ts";

/** The generated tests that count, and the deterministic ones the model's tests displaced. */
export function composeGeneratedTests(
  deterministic: readonly AdversarialTestResult[],
  model: readonly AdversarialTestResult[],
  budgetHalves: number,
): { tests: AdversarialTestResult[]; displaced: string[] } {
  const tests: AdversarialTestResult[] = [];
  const displaced: string[] = [];
  let left = budgetHalves;
  for (const t of [...model, ...deterministic]) {
    const w = weightHalves(t.severity);
    if (w <= left) {
      tests.push(t);
      left -= w;
    } else if (t.generated?.kind === "deterministic") displaced.push(t.id);
  }
  return { tests, displaced };
}
