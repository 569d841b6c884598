/**
 * @module judges/task
 * What a judge is asked to grade, and the engineering spec's rubrics in words. Pure data and types.
 */
import type { CodeQualityDimension, DeliverableDimension, JudgeProvenance } from "@bouts/scoring";

/** One file of the submission, as text. */
export interface SourceFile {
  path: string;
  content: string;
}

/** The challenge, as judges see it: never its hidden tests. */
export interface ChallengeBrief {
  id: string;
  title: string;
  summary: string;
}

/** One test of the run as a deliverable judge sees it: public tests only, with their verdict. */
export interface RunTestFact {
  id: string;
  name: string;
  /** The function or route a generated test aims at; null for pre-built tests. */
  target: string | null;
  passed: boolean;
}

/**
 * What the run showed, for checking a write-up's claims against it (docs/judges.md): the
 * declared interface's module and functions, and each public test's verdict. Built by the score
 * role from the runner's report; never from submitted text.
 */
export interface RunFacts {
  module: string | null;
  functions: string[];
  tests: RunTestFact[];
}

/**
 * The third-party packages the code ran with, as its lockfile pins them (the submission's own,
 * or the challenge's when it brought none): for "dependencies used wisely".
 */
export interface DependencyFacts {
  source: "submission" | "challenge";
  /** The direct dependencies, `name@version`. */
  direct: { name: string; version: string }[];
  /** Every package the lock pins, transitive ones included. */
  total: number;
}

/** One grading task. */
export type JudgeTask =
  | {
      kind: "code-quality";
      challenge: ChallengeBrief;
      files: SourceFile[];
      dependencies?: DependencyFacts;
    }
  | {
      kind: "deliverable";
      challenge: ChallengeBrief;
      deliverable: { name: string; content: string };
      files: SourceFile[];
      /** The run's verdicts: a fix claimed for code whose tests fail is not accurate. */
      run?: RunFacts;
    }
  | {
      kind: TraceTaskKind;
      challenge: ChallengeBrief;
      traceSummary: string;
      /** Structured facts of the same trace, for the offline trace judge (models read the text). */
      traceFacts?: TraceFacts;
    };

/** The agent-run components judged from the trace. */
export type TraceTaskKind = "process" | "strategy" | "recovery";

/**
 * Deterministic facts of an agent's trace (computed by the score role from @bouts/telemetry),
 * the offline trace judge's only input. Ratios are in [0, 1]; counts are whole numbers.
 */
export interface TraceFacts {
  /** Tool calls, edits and test runs. */
  actions: number;
  /** Edits of files. */
  edits: number;
  /** Test runs. */
  testRuns: number;
  /** Read/search tool calls before the first edit (all of them when nothing was edited). */
  investigationsBeforeFirstEdit: number;
  /** Edits followed by a test run before the next edit (or the end of the trace). */
  verifiedEdits: number;
  /** Unproductive actions / actions (docs/telemetry.md, waste). */
  wasteRatio: number;
  /** Repeated identical actions without a code change / actions. */
  churnRatio: number;
  /** Unused or repeated tool results / actions. */
  misuseRatio: number;
  /** clamp(tokens / budget − 0.5, 0, 1); 0 when not measured. */
  tokenOveruse: number;
  /** Failed actions (failed tool calls, test runs with failures or errors). */
  failures: number;
  /** Failures followed by a success of the same kind (summarizeTrace's recoveries). */
  recoveries: number;
  /** Changes of approach (summarizeTrace's pivots). */
  pivots: number;
  /** Failing tests in the last test run; null when no test ran. */
  finalFailingTests: number | null;
}

export type JudgeTaskKind = JudgeTask["kind"];

/** What kind of judge answered: the heuristic panel's static analysis, or a model with its id. */
export type { JudgeProvenance } from "@bouts/scoring";

/** One deduction a heuristic judge made: its dimension, points (lens weight applied) and where. */
export interface JudgeDeduction {
  dimension: string;
  rule: string;
  points: number;
  why: string;
  evidence: string[];
}

/** A judge's answer. Rubric tasks carry dimensions, trace tasks a single score. */
export interface Judgement {
  judge: string;
  /** "model" for an LLM behind an adapter, "offline" for the deterministic analyzer. */
  source: "model" | "offline";
  task: JudgeTaskKind;
  dimensions: Record<string, number> | null;
  score: number | null;
  rationale: string;
  /** The judge reported, or our pre-scan found, text that tries to instruct the judge. */
  injectionSuspected: boolean;
  /** Heuristic or model (with the model's id). */
  provenance: JudgeProvenance;
  /** A heuristic judge's deductions with their evidence; [] for models. */
  deductions: JudgeDeduction[];
}

/** The code-quality rubric's criteria (scoring-engine-design, Component 3). */
export const CODE_QUALITY_CRITERIA: Record<CodeQualityDimension, readonly string[]> = {
  readability: [
    "Variable and function names are meaningful and reveal intent",
    "Consistent formatting and style throughout",
    "Comments explain WHY, not WHAT (not over-commented)",
    "Logical file and module organization",
    "Control flow is clear — no nested ternaries 5 levels deep",
  ],
  architecture: [
    "Appropriate abstraction level — not over-engineered, not under-engineered",
    "Separation of concerns — HTTP layer doesn't contain business logic",
    "DRY — no significant copy-paste duplication",
    "Design patterns used where they fit, not forced",
    "Components can be tested in isolation (testability)",
  ],
  robustness: [
    "Input validation is present and thorough",
    "Errors are handled explicitly — not swallowed, not re-thrown as-is",
    "Null/undefined safety — no unchecked property access on possibly-null values",
    "Type safety (if TypeScript: no 'any' without justification)",
    "Resources cleaned up — connections closed, listeners removed, timers cleared",
  ],
  idiomaticity: [
    "Framework features used correctly — not fighting the framework",
    "Follows community conventions for the language and framework",
    "Modern syntax used — not using deprecated patterns unnecessarily",
    "Async/await, promises, callbacks used appropriately for the context",
    "Dependencies used wisely — not reinventing what a library already does",
  ],
};

/** The style-agnostic guidance judges are given. */
export const STYLE_GUIDANCE = [
  "Do not penalize functional vs. imperative style, class-based vs. module-based organization, idiomatic verbosity, or unusual patterns that are well explained.",
  "Do penalize a style used inconsistently, abstraction that serves the author's taste but not the reader, and 'clever' code that needs unusual knowledge to understand.",
];

/** The deliverable rubric (scoring-engine-design, Component 4). */
export const DELIVERABLE_CRITERIA: Record<DeliverableDimension, string> = {
  accuracy:
    "Does the explanation match reality? Does the stated root cause actually explain the observed symptoms?",
  clarity:
    "Would a junior developer understand this explanation? No jargon without definition. No assumed context.",
  completeness:
    "Are all required deliverables present and non-trivial? Not just 'the bug was here' but why it existed and how to prevent recurrence.",
  actionability:
    "Do recommendations include specific steps, owners, and timelines? 'Add null check before line 47, add test case for null input in payments.test.js' is actionable.",
};

/** Our rubrics for the agent-run components judged from the trace (docs/judges.md). */
export const TRACE_CRITERIA: Record<"process" | "strategy" | "recovery", readonly string[]> = {
  process: [
    "Reads the problem and the code before changing it; forms and tests hypotheses",
    "Runs the tests early and often; verifies each change",
    "Keeps changes small and coherent; does not thrash",
  ],
  strategy: [
    "Chooses an approach that fits the problem and the constraints",
    "Prioritizes the highest-value work; pivots when evidence says so, not at random",
    "Plans for hidden requirements and edge cases, not just the visible tests",
  ],
  recovery: [
    "Notices failures quickly and diagnoses their cause",
    "Recovers from dead ends without repeating the same failed action",
    "Leaves the work in a consistent state after a failure",
  ],
};
