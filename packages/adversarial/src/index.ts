/**
 * @module adversarial
 * Generated adversarial tests, the generated share of adversarial weight (`@bouts/scoring`
 * ADVERSARIAL_COMPOSITION): one generator interface, the deterministic generator driven by the
 * challenge's declared interface (offline), and the model-backed generator that writes tests
 * from reading the code. Generators only write tests; the runner runs them in the sandbox.
 * Pure: no I/O of its own.
 */
export type {
  AdversarialGenerator,
  GenerationError,
  GenerationInput,
  GenerationResult,
} from "./generator.ts";
export {
  computeGeneratedBudget,
  drawCandidates,
  hashString,
  hintAllowance,
  selectCandidates,
  type Draw,
  STANDALONE_BUDGET_HALVES,
  weightHalves,
  type Selectable,
} from "./budget.ts";
export { readCodeHints, applyHints, type CodeHint } from "./hints.ts";
export {
  buildCandidates,
  createDeterministicGenerator,
  DETERMINISTIC_FILES,
  DETERMINISTIC_GENERATOR,
  writeDeterministicSuite,
} from "./deterministic.ts";
export {
  createModelGenerator,
  ModelTestsSchema,
  parseModelTests,
  writeModelTest,
  type ModelGeneratorOptions,
} from "./model.ts";
export { composeGeneratedTests } from "./compose.ts";
export {
  deriveBundleDrawKey,
  deriveDrawSeed,
  DRAW_KEY_VERSION,
  DRAW_SEED_VERSION,
  isDrawHex,
  UNKEYED_DRAW_KEY,
} from "./draw.ts";
export { jsTestName, pyTestName } from "./write-module.ts";
