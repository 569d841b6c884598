/**
 * @module score/profile-steps
 * The score role's steps for each scoring profile, around the pipeline every profile shares
 * (run → code and deliverable judges → engineering input → engineering breakdown → interval →
 * pairing; the full suite of a split challenge): what the profile loads before the run, what
 * its own judges grade after the run, and how its score is computed around the engineering
 * objective. `scoreOnBundle` (score-run.ts) chooses them once per run from the challenge's
 * profile (`resolveProfileSteps`); `PROFILE_STEPS` has one entry per profile id of the
 * engine's registry, or does not compile. The engineering profile adds nothing to the shared
 * pipeline; the agent profile loads and parses the trace before the run (agent-run.ts), judges
 * it after, and computes the agent-run breakdown around the engineering input.
 * Invariants: a step's refusal carries its outcome (ours: retry; the submission's: fail with
 * its failure code); the engine decides every point.
 */
import type { ChallengeManifest, RunReport } from "@bouts/contracts";
import { createDb, type ScoringContext, type SubmissionFailureCode } from "@bouts/db";
import type { ChallengeBrief, Judge } from "@bouts/judges";
import { ok, type Result } from "@bouts/result";
import {
  computeEngineering,
  isProfileId,
  type Breakdown,
  type EngineeringInput,
  type ObjectiveBreakdown,
  type ProfileId,
  type ScoreInput,
} from "@bouts/scoring";
import type { ObservedUsage, Trace } from "@bouts/telemetry";
import { computeAgentRun, judgeAgentRun, loadAgentPrelude } from "./agent-run.ts";
import type { ScoreEnv } from "./env.ts";
import type { RunJudgements } from "./judging.ts";
import { readObservedUsage } from "./observed-usage.ts";
import { observePlatform, readEarlierSubmissions } from "./platform-observations.ts";

/** Why a profile's step refused the run: our fault (retried), or the submission's (final). */
export type StepRefusal =
  | { retryable: true; detail: string }
  | { retryable: false; code: SubmissionFailureCode; detail: string };

/** One view of a run to score: the public part of a split challenge, or the whole run. */
export interface ScoreView {
  report: RunReport;
  /** The view's engineering input. */
  objective: EngineeringInput;
  /** Its engineering breakdown when the caller has computed it (the stored score does). */
  engineering: ObjectiveBreakdown | null;
}

/** A profile's score of one view: the engine input stored with it, and its breakdown. */
export interface ProfileScore {
  input: ScoreInput;
  breakdown: Breakdown;
}

/** What a profile's own judges said after the run, and how the profile scores a view with it. */
export interface ProfileJudged {
  /** Judgements stored with the run's code and deliverable judgements (the trace judges'). */
  records: RunJudgements["records"];
  failures: RunJudgements["failures"];
  /** The run's judge mode, with the profile's own note when it has one. */
  judgeMode: (mode: string) => string;
  /** The profile's score of `view`, around its engineering input. */
  score: (view: ScoreView) => Result<ProfileScore, StepRefusal>;
}

/** What a profile's judges are given once the run's final report exists. */
export interface ProfileJudgeRequest {
  judges: readonly Judge[];
  challenge: ChallengeBrief;
  manifest: ChallengeManifest;
  /** The final report, with any model-written tests. */
  report: RunReport;
  /** What of a report the profile's judges may read (a split challenge: its public part). */
  readable: (report: RunReport) => RunReport;
  claimsJson: string | null;
  /** The attempt's deadline. */
  signal?: AbortSignal;
}

/** A profile's steps for one run, once it has loaded what it needs before the run. */
export interface ProfileRun {
  /** The parsed telemetry trace, when the profile loaded one: the run's usage is read from it. */
  trace: Trace | null;
  /** The model usage the metering gateway counted for the submission, when it saw any. */
  observedUsage: ObservedUsage | null;
  /** After the run, beside the code judges (evaluate.ts): what the profile's judges say. */
  judge: (e: ProfileJudgeRequest) => Promise<ProfileJudged>;
}

/** The score role's steps of one scoring profile. */
export interface ProfileSteps {
  /**
   * Before the run: loads and checks what the profile needs, so that a submission it cannot
   * score costs no run.
   */
  prepare: (env: ScoreEnv, ctx: ScoringContext) => Promise<Result<ProfileRun, StepRefusal>>;
}

/** The engineering profile scores a view as its engineering breakdown, nothing around it. */
const ENGINEERING_JUDGED: ProfileJudged = {
  records: [],
  failures: [],
  judgeMode: (mode) => mode,
  score: ({ objective, engineering }) => {
    if (engineering) return ok({ input: objective, breakdown: engineering });
    const scored = computeEngineering(objective);
    return scored.ok
      ? ok({ input: objective, breakdown: scored.value })
      : {
          ok: false,
          error: { retryable: false, code: "scoring-refused", detail: scored.error.detail },
        };
  },
};

/** The engineering profile: nothing before the run, no judges of its own. */
const ENGINEERING_STEPS: ProfileSteps = {
  prepare: () =>
    Promise.resolve(
      ok({
        trace: null,
        observedUsage: null,
        judge: () => Promise.resolve(ENGINEERING_JUDGED),
      }),
    ),
};

/**
 * The agent profile: the trace loaded and parsed before the run (a missing or invalid one fails
 * the submission, `trace-refused`) with the platform's records of the agent's submissions and
 * model usage, cross-checked and judged once the final report exists (docs/design.md §40), and
 * the agent-run breakdown computed around each view's engineering input (agent-run.ts).
 */
const AGENT_STEPS: ProfileSteps = {
  prepare: async (env, ctx) => {
    const prelude = await loadAgentPrelude(env.ARTIFACTS, ctx);
    if (!prelude.ok)
      return {
        ok: false,
        error: { retryable: false, code: "trace-refused", detail: prelude.error.detail },
      };
    const db = createDb(env.DB);
    const earlier = await readEarlierSubmissions(db, ctx);
    // The model calls the metering gateway saw for this agent on this challenge since its
    // previous submission (docs/gateway.md); unreadable now is ours to retry, never a guess.
    const usage = await readObservedUsage(env, {
      agentId: ctx.submission.agentId,
      challengeId: ctx.submission.challengeId,
      from: earlier.lastReceivedAt,
      to: ctx.submission.receivedAt,
    });
    if (!usage.ok) return { ok: false, error: { retryable: true, detail: usage.error.detail } };
    const records = { earlier, usage: usage.value };
    return ok({
      trace: prelude.value.trace,
      observedUsage: records.usage,
      judge: async (e) => {
        // The files that ran are the final report's; the tests the judges and the cross-checks
        // read are the readable part's (a split challenge's public part).
        const observations = await observePlatform(db, {
          ctx,
          records,
          manifest: e.manifest,
          report: e.report,
        });
        const judged = await judgeAgentRun({
          prelude: prelude.value,
          judges: e.judges,
          challenge: e.challenge,
          manifest: e.manifest,
          report: e.readable(e.report),
          claimsJson: e.claimsJson,
          observations,
          ...(e.signal ? { signal: e.signal } : {}),
        });
        return {
          records: judged.judged.records,
          failures: judged.judged.failures,
          judgeMode: (mode) =>
            judged.judged.offlineTrace && mode !== "offline" ? `${mode}+offline-trace` : mode,
          score: (view) => {
            const run = computeAgentRun({
              prelude: prelude.value,
              report: view.report,
              objective: view.objective,
              judged,
            });
            if (!run.ok)
              return {
                ok: false,
                error: run.error.retryable
                  ? { retryable: true, detail: run.error.detail }
                  : { retryable: false, code: "trace-refused", detail: run.error.detail },
              };
            return ok({ input: run.value.input, breakdown: run.value.breakdown });
          },
        };
      },
    });
  },
};

/** Each profile's steps, by the engine's profile id. */
export const PROFILE_STEPS: { readonly [K in ProfileId]: ProfileSteps } = {
  engineering: ENGINEERING_STEPS,
  agent: AGENT_STEPS,
};

/** The steps of a challenge's profile, or null for a profile the engine does not know. */
export function resolveProfileSteps(profile: string): ProfileSteps | null {
  return isProfileId(profile) ? PROFILE_STEPS[profile] : null;
}
