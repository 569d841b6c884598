/**
 * @module judges/offline-trace
 * The offline trace judges: Process, Strategy and Recovery scored deterministically from the
 * structured facts of an agent's trace (`JudgeTask.traceFacts`), for deployments without
 * model judges. Invariants: the score depends only on the facts and the lens — never on the
 * summary text, so text in the trace cannot move it; every score is a whole number in
 * 0–100; a task without facts (or of another kind) is `unsupported`, never guessed. The
 * rubric's formulas are in docs/judges.md ("Offline trace judges"). Pure.
 */
import { findInjectionLines } from "./injection.ts";
import { submittedText, type Judge } from "./judge.ts";
import { resolveOfflineJudgement, resolveUnsupported } from "./offline.ts";
import type { JudgeTask, TraceFacts, TraceTaskKind } from "./task.ts";

/** One loss: points off 100 before the lens scale, and why. */
export interface TraceLoss {
  points: number;
  why: string;
}

/** The three offline trace lenses and how strongly each weighs the losses. */
export const OFFLINE_TRACE_LENSES: Record<string, number> = {
  "offline-trace-strict": 1.15,
  "offline-trace-even": 1,
  "offline-trace-lenient": 0.85,
};

const cap = (x: number, max: number) => Math.min(max, Math.max(0, x));
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Every loss a trace earns on one component, before lens weighting (docs/judges.md). */
export function computeTraceLosses(kind: TraceTaskKind, f: TraceFacts): TraceLoss[] {
  const losses: TraceLoss[] = [];
  const add = (points: number, why: string) => {
    if (points > 0) losses.push({ points: Math.round(points * 100) / 100, why });
  };
  if (kind === "process") {
    if (f.edits > 0 && f.investigationsBeforeFirstEdit === 0)
      add(25, "edited before reading or searching anything");
    if (f.edits > 0)
      add(
        30 * (1 - Math.min(f.verifiedEdits, f.edits) / f.edits),
        `${f.edits - Math.min(f.verifiedEdits, f.edits)} of ${f.edits} edits never verified by a test run`,
      );
    if (f.testRuns === 0) add(25, "never ran the tests");
    add(cap(50 * f.churnRatio, 30), `${pct(f.churnRatio)} retry churn`);
  } else if (kind === "strategy") {
    add(cap(50 * f.wasteRatio, 40), `${pct(f.wasteRatio)} unproductive actions`);
    add(cap(30 * f.misuseRatio, 20), `${pct(f.misuseRatio)} tool misuse`);
    add(20 * cap(f.tokenOveruse, 1), `token overuse ${f.tokenOveruse.toFixed(2)}`);
    if (f.finalFailingTests === null) add(15, "no test run to show the final state");
    else if (f.finalFailingTests > 0)
      add(20, `${f.finalFailingTests} tests still failing in the last run`);
    add(cap(5 * (f.pivots - 3), 15), `${f.pivots} changes of approach`);
  } else {
    if (f.failures === 0) add(10, "no failure to recover from (recovery not exercised)");
    else
      add(
        60 * (1 - Math.min(f.recoveries, f.failures) / f.failures),
        `${Math.min(f.recoveries, f.failures)} of ${f.failures} failures recovered`,
      );
    add(cap(60 * f.churnRatio, 30), `${pct(f.churnRatio)} identical retries`);
    if (f.finalFailingTests !== null && f.finalFailingTests > 0)
      add(10, `ended with ${f.finalFailingTests} failing tests`);
  }
  return losses;
}

/** The score one lens gives: 100 − Σ losses × scale, rounded and clamped to 0–100. */
export function scoreTraceFacts(kind: TraceTaskKind, facts: TraceFacts, scale = 1): number {
  const total = computeTraceLosses(kind, facts).reduce((s, l) => s + l.points, 0);
  return Math.round(cap(100 - total * scale, 100));
}

const isTraceTask = (t: JudgeTask): t is Extract<JudgeTask, { kind: TraceTaskKind }> =>
  t.kind === "process" || t.kind === "strategy" || t.kind === "recovery";

/** Creates one offline trace judge by lens name (see OFFLINE_TRACE_LENSES). */
export function createOfflineTraceJudge(lens: string): Judge {
  const scale = OFFLINE_TRACE_LENSES[lens] ?? 1;
  return {
    id: lens,
    source: "offline",
    judge(task: JudgeTask) {
      if (!isTraceTask(task) || !task.traceFacts)
        return resolveUnsupported(
          lens,
          isTraceTask(task)
            ? "the offline trace judge needs the task's traceFacts"
            : `the offline trace judge does not grade ${task.kind}`,
        );
      const losses = computeTraceLosses(task.kind, task.traceFacts);
      return resolveOfflineJudgement(lens, task, {
        dimensions: null,
        score: scoreTraceFacts(task.kind, task.traceFacts, scale),
        rationale: `offline trace rubric: ${
          losses.map((l) => `−${l.points} ${l.why}`).join("; ") || "no losses"
        }; losses ×${scale}`,
        // Reported, as the other judges do; it cannot move a score computed from facts.
        injectionSuspected: findInjectionLines(submittedText(task)).length > 0,
      });
    },
  };
}

/** The default offline trace panel: the three lenses. */
export const createOfflineTracePanel = (): Judge[] =>
  Object.keys(OFFLINE_TRACE_LENSES).map((l) => createOfflineTraceJudge(l));
