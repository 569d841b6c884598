/**
 * @module judges/panel
 * Runs a panel of judges on one task at once, keeps the valid judgements and the failures
 * apart, and maps judgements onto the engine's inputs (the engine aggregates).
 */
import type { CodeQualityJudgement, DeliverableJudgement, ScoreJudgement } from "@bouts/scoring";
import type { Judge, JudgeError } from "./judge.ts";
import type { JudgeTask, Judgement } from "./task.ts";

export interface PanelOutcome {
  judgements: Judgement[];
  failures: JudgeError[];
  /** Any judge reported, or the pre-scan found, an attempt to instruct the judges. */
  injectionSuspected: boolean;
}

/** Asks every judge at once; one judge's failure or slowness never loses the others' answers. */
export async function runPanel(
  judges: readonly Judge[],
  task: JudgeTask,
  signal?: AbortSignal,
): Promise<PanelOutcome> {
  const settled = await Promise.allSettled(judges.map((j) => j.judge(task, signal)));
  const judgements: Judgement[] = [];
  const failures: JudgeError[] = [];
  settled.forEach((s, i) => {
    const id = judges[i]!.id;
    if (s.status === "rejected")
      failures.push({ reason: "network", judge: id, detail: String(s.reason) });
    else if (s.value.ok) judgements.push(s.value.value);
    else failures.push(s.value.error);
  });
  return { judgements, failures, injectionSuspected: judgements.some((j) => j.injectionSuspected) };
}

/** Code-quality judgements in the engine's shape. */
export const toCodeQualityInput = (js: readonly Judgement[]): CodeQualityJudgement[] =>
  js
    .filter((j) => j.task === "code-quality" && j.dimensions)
    .map((j) => ({
      judge: j.judge,
      provenance: j.provenance,
      dimensions: j.dimensions as CodeQualityJudgement["dimensions"],
    }));

/** Deliverable judgements in the engine's shape. */
export const toDeliverableInput = (js: readonly Judgement[]): DeliverableJudgement[] =>
  js
    .filter((j) => j.task === "deliverable" && j.dimensions)
    .map((j) => ({
      judge: j.judge,
      provenance: j.provenance,
      dimensions: j.dimensions as DeliverableJudgement["dimensions"],
    }));

/** Process/strategy/recovery judgements in the engine's shape. */
export const toScoreInput = (js: readonly Judgement[]): ScoreJudgement[] =>
  js
    .filter((j) => j.score !== null)
    .map((j) => ({ judge: j.judge, provenance: j.provenance, score: j.score! }));
