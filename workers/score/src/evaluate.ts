/**
 * @module score/evaluate
 * What follows the run, before the engine: model-written tests, the code and deliverable judges
 * and the profile's own judges (the agent profile's trace judges, profile-steps.ts) — at the
 * same time wherever they are independent. Knows no profile: the caller passes its judging.
 * Invariant: each step sees exactly what it saw when they ran one after another (the code judges
 * read only the run's sources and deliverables, which model tests never change; the profile's
 * judges may cite test results, so they wait for the final report).
 */
import type { AdversarialGenerator } from "@bouts/adversarial";
import type { ChallengeManifest, RunReport } from "@bouts/contracts";
import type { ChallengeBrief, Judge } from "@bouts/judges";
import { addModelTests } from "./generation.ts";
import { judgeRun, type RunJudgements } from "./judging.ts";
import type { RunnerEnv } from "./runner-client.ts";

/**
 * Everything the steps after the run need; `P` is what the profile's judges answer (nothing
 * without `judgeProfile`).
 */
export interface EvaluateRequest<P = null> {
  runId: string;
  /** The runner's report of the run (with the deterministic generator's tests). */
  report: RunReport;
  manifest: ChallengeManifest;
  challenge: ChallengeBrief;
  judges: readonly Judge[];
  /** The configured model generator, or null when only the deterministic one runs. */
  generator: AdversarialGenerator | null;
  submission: Uint8Array;
  bundle: Uint8Array;
  /** The attempt's deadline. */
  signal?: AbortSignal;
  /** Charges the model tests' generated run to the agent. */
  chargeRunner?: (runnerMs: number) => Promise<void>;
  /**
   * The profile's own judges (the agent profile's: its trace), asked with the final report once
   * it exists, beside the code judges; absent when the caller has none to ask.
   */
  judgeProfile?: (report: RunReport) => Promise<P>;
}

/** The final report (with any model-written tests) and every judgement of the run. */
export interface Evaluation<P = null> {
  report: RunReport;
  judged: RunJudgements;
  /** What the profile's judges answered; null when the request had no `judgeProfile`. */
  profile: P;
}

/**
 * Runs the steps after the run: the code judges at once; the model's tests (written, checked
 * against the reference and run by the runner) beside them; the profile's judges once the final
 * report exists, still beside the code judges. Takes as long as the longest chain, not the sum.
 */
export async function evaluateRun<P = null>(
  env: RunnerEnv,
  e: EvaluateRequest<P>,
): Promise<Evaluation<P>> {
  const judged = judgeRun(e.judges, e.report, e.manifest, e.challenge, e.signal);
  const extended: Promise<RunReport> = e.generator
    ? addModelTests(env, e.generator, {
        runId: e.runId,
        report: e.report,
        manifest: e.manifest,
        submission: e.submission,
        bundle: e.bundle,
        ...(e.signal ? { signal: e.signal } : {}),
        ...(e.chargeRunner ? { chargeRunner: e.chargeRunner } : {}),
      })
    : Promise.resolve(e.report);
  // Without a profile's judges there is nothing to answer: `P` is then its default, null.
  const profile: Promise<P> = e.judgeProfile
    ? extended.then(e.judgeProfile)
    : Promise.resolve(null as P);
  const [report, code, answered] = await Promise.all([extended, judged, profile]);
  return { report, judged: code, profile: answered };
}
