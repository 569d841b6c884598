/**
 * @module judges/analysis/findings
 * What the analysis reports: a finding is one observation with its rule, file and line, and
 * `CodeMetrics` every figure the heuristic judges use. Types only. Pure.
 */

/** What a finding is about; docs/judges.md lists what each rule looks for. */
export type FindingRule =
  | "empty-catch"
  | "swallowed-error"
  | "bare-except"
  | "error-detail-leak"
  | "process-exit"
  | "stub-function"
  | "stub-handler"
  | "trivial-wrapper"
  | "import-side-effect"
  | "test-code-in-source"
  | "unused-parameter"
  | "dead-code"
  | "commented-out-code"
  | "magic-number"
  | "praise-comment"
  | "judge-directed-text"
  | "eval"
  | "var"
  | "loose-equality"
  | "deprecated-api"
  | "debug-print"
  | "todo"
  | "any-type"
  | "unguarded-for-in"
  | "sql-concatenation"
  | "hardcoded-secret"
  | "mutable-default"
  | "wildcard-import"
  | "lint-suppression"
  | "missing-docstring"
  | "missing-type-hints"
  | "complex-function"
  | "long-function"
  | "deep-nesting"
  | "many-parameters"
  | "cryptic-name"
  | "duplicate-block"
  | "long-line"
  | "nested-callback"
  | "unchecked-input";

/** One observation, where it was made. */
export interface Finding {
  rule: FindingRule;
  file: string;
  line: number;
  detail: string;
}

/** Every figure the heuristic judges use; ratios are 0–1. */
export interface CodeMetrics {
  files: number;
  codeLines: number;
  largestFileShare: number;
  commentRatio: number;
  longLineRatio: number;
  /** Control-flow blocks nested inside one function, at most. */
  maxNesting: number;
  functions: number;
  /** Share of the code lines in the largest function (nested functions not counted). */
  largestFunctionShare: number;
  /** Mean body lines of the functions that are neither trivial wrappers nor expression-bodied. */
  meanFunctionLines: number;
  maxComplexity: number;
  /** Functions the module offers (exported in JS/TS, public top-level `def` in Python). */
  publicFunctions: number;
  stubFunctions: number;
  /**
   * Entry points: exported functions (a factory that builds request handlers counts through
   * them instead) and request handlers. `doNothing` when there is at least one and every one
   * is a stub (a handler stub answers from the URL alone, reading nothing else).
   */
  entryPoints: number;
  stubEntryPoints: number;
  doNothing: boolean;
  shortNameRatio: number;
  /** Share of code lines inside a block that occurs twice or more (identifiers normalized). */
  duplicateRatio: number;
  emptyCatches: number;
  tryBlocks: number;
  /** `throw` / `raise` statements and explicit rejections (400 answers, safeParse, …). */
  rejections: number;
  validationHints: number;
  findings: Finding[];
}
