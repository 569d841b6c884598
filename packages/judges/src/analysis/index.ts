/**
 * @module judges/analysis
 * Deterministic static measurements of JS/TS and Python source for the heuristic judges:
 * per-function size, complexity, nesting and parameters; duplication (identifiers renamed
 * still match); naming; error handling; lint-like findings; dead code; magic numbers. Every
 * finding keeps its file and line. Lines aimed at a judge are blanked first. Pure.
 *
 * `measure.ts` runs the checks; each other module is one measurement (lines.ts, functions.ts,
 * handlers.ts and function-checks.ts, naming.ts, error-handling.ts, lint-rules.ts,
 * module-checks.ts, duplication.ts) over a `SourceUnit` (source-unit.ts).
 */
export type { CodeMetrics, Finding, FindingRule } from "./findings.ts";
export { COMPLEXITY_LIMIT, isStub } from "./functions.ts";
export { isSourcePath, measureCode } from "./measure.ts";
