/**
 * @module score/agent-run
 * The agent profile's steps around the engine, which its entry of `PROFILE_STEPS`
 * (profile-steps.ts) calls: load and parse the submission's trace from R2 before the runner is
 * asked, so a submission that cannot be scored costs no run (loadAgentPrelude); with the final
 * report, analyse the trace and ask the judges about Process / Strategy / Recovery
 * (judgeAgentRun), the trace cross-checked against what the platform saw (docs/design.md §40);
 * with a view's engineering input, compute the agent breakdown (computeAgentRun). Invariants: a
 * missing or invalid trace is a non-retryable failure with the reason; the engine decides every
 * point; the mapping itself is pure (`@bouts/telemetry`, agent-input.ts).
 */
import type { ChallengeManifest, RunReport } from "@bouts/contracts";
import type { ScoringContext } from "@bouts/db";
import type { Judge } from "@bouts/judges";
import type { Result } from "@bouts/result";
import {
  computeAgent,
  type AgentInput,
  type Breakdown,
  type EngineeringInput,
} from "@bouts/scoring";
import {
  analyzeTrace,
  annotateAgentBreakdown,
  buildAgentInput,
  parseStoredTrace,
  readAgentConfig,
  type AgentConfig,
  type AgentInputError,
  type PlatformObservations,
  type Trace,
  type TraceAnalysis,
} from "@bouts/telemetry";
import { judgeTrace, type TraceJudgementsOutcome } from "./judging.ts";

/** Why an agent run could not be scored; `retryable` failures are ours. */
export type AgentRunError =
  | AgentInputError
  | { reason: "trace-missing"; retryable: false; detail: string }
  | { reason: "engine"; retryable: false; detail: string };

/** What was loaded before the run: the challenge's agent settings and the parsed trace. */
export interface AgentPrelude {
  config: AgentConfig;
  trace: Trace;
}

/** Reads the challenge's agent settings and the submission's trace (R2), and parses it. */
export async function loadAgentPrelude(
  artifacts: R2Bucket,
  ctx: ScoringContext,
): Promise<Result<AgentPrelude, AgentRunError>> {
  const config = readAgentConfig(ctx.challenge);
  if (!config.ok) return config;
  const key = ctx.submission.traceKey;
  let text: string | null = null;
  if (key !== null) {
    const object = await artifacts.get(key);
    if (!object)
      return {
        ok: false,
        error: {
          reason: "trace-missing",
          retryable: false,
          detail: "the submitted telemetry trace is no longer stored",
        },
      };
    text = await object.text();
  }
  const trace = parseStoredTrace(text);
  if (!trace.ok) return trace;
  return { ok: true, value: { config: config.value, trace: trace.value } };
}

/** The scored agent run: its input and its annotated breakdown. */
export interface AgentRun {
  input: AgentInput;
  breakdown: Breakdown;
}

/** The trace's analysis against the final report, and what the judges said about it. */
export interface AgentJudged {
  analysis: TraceAnalysis;
  judged: TraceJudgementsOutcome;
}

/**
 * Analyses the trace against the final report (its claims cite test results, model-written tests
 * included) and asks the judges about Process / Strategy / Recovery. Needs no engineering score,
 * so it runs beside the code judges.
 */
export async function judgeAgentRun(e: {
  prelude: AgentPrelude;
  judges: readonly Judge[];
  challenge: { id: string; title: string; summary: string };
  manifest: ChallengeManifest;
  report: RunReport;
  claimsJson: string | null;
  /** What the platform saw of the submission: the trace is cross-checked against it (§40). */
  observations: PlatformObservations;
  /** The attempt's deadline for the trace judges. */
  signal?: AbortSignal;
}): Promise<AgentJudged> {
  const analysis = analyzeTrace(e.prelude.trace, {
    manifest: e.manifest,
    report: e.report,
    tokenBudget: e.prelude.config.tokenBudget,
    claimsJson: e.claimsJson,
    observations: e.observations,
  });
  const judged = await judgeTrace(
    e.judges,
    e.challenge,
    analysis.summary.text,
    analysis.facts,
    e.signal,
  );
  return { analysis, judged };
}

/** Computes the agent breakdown from the judged trace, with the engineering input as Objective. */
export function computeAgentRun(e: {
  prelude: AgentPrelude;
  report: RunReport;
  objective: EngineeringInput;
  judged: AgentJudged;
}): Result<AgentRun, AgentRunError> {
  const { analysis, judged } = e.judged;
  const input = buildAgentInput({
    objective: e.objective,
    config: e.prelude.config,
    report: e.report,
    analysis,
    judged: judged.judged,
  });
  if (!input.ok) return input;
  const scored = computeAgent(input.value);
  if (!scored.ok) {
    const x = scored.error;
    return {
      ok: false,
      error: {
        reason: "engine",
        retryable: false,
        detail: `the scoring engine refused the run: ${x.reason === "weight-rule" ? x.rule : x.field}: ${x.detail}`,
      },
    };
  }
  return {
    ok: true,
    value: {
      input: input.value,
      breakdown: annotateAgentBreakdown(scored.value, analysis),
    },
  };
}
