/**
 * @module score/evaluate
 * What follows the run, before the engine: model-written tests, the code and deliverable judges
 * and, for an agent challenge, the trace judges — at the same time wherever they are independent.
 * Invariant: each step sees exactly what it saw when they ran one after another (the code judges
 * read only the run's sources and deliverables, which model tests never change; the trace's
 * analysis cites test results, so it waits for the final report).
 */
import type { AdversarialGenerator } from "@bouts/adversarial";
import type { ChallengeManifest, RunReport } from "@bouts/contracts";
import type { ChallengeBrief, Judge } from "@bouts/judges";
import { judgeAgentRun, type AgentJudged, type AgentPrelude } from "./agent-run.ts";
import { addModelTests } from "./generation.ts";
import { judgeRun, type RunJudgements } from "./judging.ts";
import type { RunnerEnv } from "./runner-client.ts";

/** Everything the steps after the run need. */
export interface EvaluateRequest {
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
  /** The agent profile's parsed trace, or null for an engineering challenge. */
  agent: AgentPrelude | null;
  claimsJson: string | null;
  /** The attempt's deadline. */
  signal?: AbortSignal;
  /** Charges the model tests' generated run to the agent. */
  chargeRunner?: (runnerMs: number) => Promise<void>;
  /** What of the final report the trace judges may read (a split challenge: its public part). */
  traceView?: (report: RunReport) => RunReport;
}

/** The final report (with any model-written tests) and every judgement of the run. */
export interface Evaluation {
  report: RunReport;
  judged: RunJudgements;
  /** The trace's analysis and judgements (agent profile), else null. */
  trace: AgentJudged | null;
}

/**
 * Runs the steps after the run: the code judges at once; the model's tests (written, checked
 * against the reference and run by the runner) beside them; the trace judges once the final
 * report exists, still beside the code judges. Takes as long as the longest chain, not the sum.
 */
export async function evaluateRun(env: RunnerEnv, e: EvaluateRequest): Promise<Evaluation> {
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
  const agent = e.agent;
  const trace: Promise<AgentJudged | null> = agent
    ? extended.then((report) =>
        judgeAgentRun({
          prelude: agent,
          judges: e.judges,
          challenge: e.challenge,
          manifest: e.manifest,
          report: e.traceView ? e.traceView(report) : report,
          claimsJson: e.claimsJson,
          ...(e.signal ? { signal: e.signal } : {}),
        }),
      )
    : Promise.resolve(null);
  const [report, code, traced] = await Promise.all([extended, judged, trace]);
  return { report, judged: code, trace: traced };
}
