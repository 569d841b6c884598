/**
 * @module score/pipeline
 * Scores one submission (docs/score.md): lease → runner → judges → engine → one D1 batch →
 * leaderboard → webhook events (publish.ts); an `agent` challenge also scores its trace.
 * Invariants: exactly-once effects on at-least-once delivery (the lease keeps consumers apart, the
 * score is written once, publishing is idempotent by submission id); a failure on our side never
 * fails the submission inside RETRY_WINDOW_MS; no outbound call outlives the lease.
 */
import type { RunReport } from "@bouts/contracts";
import {
  claimScoringLease,
  createDb,
  deferScoring,
  failSubmission,
  findScore,
  findScoringContext,
  markSubmissionPublished,
  recordRunnerUsage,
  saveScore,
  type Db,
  type ScoreWrite,
  type ScoringContext,
  type RunnerUsageKind,
  type SubmissionFailureCode,
} from "@bouts/db";
import type { Breakdown, ScoreInput } from "@bouts/scoring";
import type { TraceUsage } from "@bouts/telemetry";
import type { ScoreEnv } from "./env.ts";
import type { RunJudgements } from "./judging.ts";
import { publishFailed, publishScored } from "./publish.ts";
import { sendRescoreIfOpen } from "./rescore-message.ts";
import { scoreOnBundle, storeReport, type ScoredRun } from "./score-run.ts";
import { storeFullSuite } from "./split-scoring.ts";

/** How long one attempt may hold a submission before another consumer may take it over. */
export const LEASE_MS = 15 * 60 * 1000;
/**
 * How long every outbound call of one attempt (runner, judges, generator) may take in all:
 * three minutes inside the lease, so the attempt has given up before anyone may take it over.
 */
export const ATTEMPT_DEADLINE_MS = LEASE_MS - 3 * 60 * 1000;
/**
 * How long a submission keeps being retried after its first failure on our side, before it is
 * failed with `infrastructure` (which costs no iteration, and an operator may re-judge).
 */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_SECONDS = 30 * 60;

/**
 * The wait before the next attempt after `attempts` attempts failed on our side: 30 s,
 * doubling, capped at 30 min (30 s, 1, 2, 4, 8, 16, 30, 30, … min).
 */
export function computeRetryDelaySeconds(attempts: number): number {
  return Math.min(MAX_RETRY_DELAY_SECONDS, 30 * 2 ** Math.max(0, attempts - 1));
}

/** The shortest wait before a retry (the first one after the runner could not be reached). */
export const MIN_RETRY_DELAY_SECONDS = 5;

/**
 * The wait before the next attempt when the runner could not be reached at all (down, or
 * restarted mid-run): half as long as the submission has been waiting, at least 5 s, at most
 * 30 min (5, 5, 5, 7, 11, 17, 25, 38, 57 s, …). A runner that comes back is used within half its
 * downtime plus 5 s, so a supervised restart (`npm start`) or an operator's costs seconds, not
 * the minutes of the doubling schedule; a runner that stays down is asked less and less often.
 */
export function computeUnreachableRetryDelaySeconds(waitedMs: number): number {
  return Math.min(
    MAX_RETRY_DELAY_SECONDS,
    Math.max(MIN_RETRY_DELAY_SECONDS, Math.ceil(waitedMs / 2000)),
  );
}

/** What to do with the queue message. */
export type MessageOutcome =
  { action: "ack"; note: string } | { action: "retry"; delaySeconds: number; note: string };

export { checkArtifact } from "./score-run.ts";

/** Announces a failure and marks it published; safe to repeat. */
export async function announceFailure(
  env: ScoreEnv,
  db: Db,
  ctx: ScoringContext,
  reason: string,
  now: number,
): Promise<void> {
  await publishFailed(env, ctx, reason);
  await markSubmissionPublished(db, ctx.submission.id, now);
}

/**
 * Ranks and announces a stored score and marks it published (`published_at`); safe to repeat, so
 * it is simply repeated when a message comes back after a partial failure, and the reconciler
 * (reconcile.ts) finishes what a crash left unpublished.
 */
export async function announceScore(
  env: ScoreEnv,
  db: Db,
  ctx: ScoringContext,
  now: number,
): Promise<void> {
  await publishScored(env, db, ctx);
  await markSubmissionPublished(db, ctx.submission.id, now);
}

/** Processes one submission message. Never throws for expected failures. */
export async function processSubmission(
  env: ScoreEnv,
  submissionId: string,
  now: () => number,
): Promise<MessageOutcome> {
  const db = createDb(env.DB);
  const ctx = await findScoringContext(db, submissionId);
  if (!ctx) return { action: "ack", note: `unknown submission ${submissionId}` };
  const status = ctx.submission.status;
  if (status === "scored") {
    if (ctx.submission.publishedAt !== null) return { action: "ack", note: "already published" };
    await announceScore(env, db, ctx, now());
    return { action: "ack", note: "already scored; publishing repeated" };
  }
  if (status === "failed") {
    if (ctx.submission.publishedAt === null)
      await announceFailure(env, db, ctx, ctx.submission.failureReason ?? "failed", now());
    return { action: "ack", note: "already failed" };
  }

  const lease = await claimScoringLease(db, submissionId, now(), LEASE_MS);
  if (!lease.claimed) {
    const wait = lease.leaseUntil ? Math.ceil((lease.leaseUntil - now()) / 1000) + 5 : 30;
    return {
      action: "retry",
      delaySeconds: Math.max(5, Math.min(wait, 900)),
      note: "another consumer holds the lease",
    };
  }

  // Every outbound call of this attempt ends before the lease does.
  const signal = AbortSignal.timeout(ATTEMPT_DEADLINE_MS);
  // A failure on our side waits, visibly (`waiting`), and is retried with capped backoff until
  // RETRY_WINDOW_MS has passed; only the submission's own fault (`fail`) fails it early.
  const retryOrFail = async (detail: string, unreachable = false): Promise<MessageOutcome> => {
    const since = ctx.submission.waitingSince ?? now();
    if (now() - since >= RETRY_WINDOW_MS) {
      const hours = Math.round(RETRY_WINDOW_MS / 3_600_000);
      const reason = `scoring could not complete on the platform's side for ${hours} h (${lease.attempts} attempts); an operator can re-judge it: ${detail}`;
      await failSubmission(db, submissionId, reason, now(), "infrastructure");
      await announceFailure(env, db, ctx, reason, now());
      return { action: "ack", note: reason };
    }
    const delaySeconds = unreachable
      ? computeUnreachableRetryDelaySeconds(now() - since)
      : computeRetryDelaySeconds(lease.attempts);
    await deferScoring(db, submissionId, detail, now(), now() + delaySeconds * 1000);
    return { action: "retry", delaySeconds, note: detail };
  };
  const recordFailure = async (
    code: SubmissionFailureCode,
    reason: string,
  ): Promise<MessageOutcome> => {
    await failSubmission(db, submissionId, reason, now(), code);
    await announceFailure(env, db, ctx, reason, now());
    return { action: "ack", note: `${code}: ${reason}` };
  };
  const chargeRunner = (kind: RunnerUsageKind, runId: string, runnerMs: number) =>
    recordRunnerUsage(db, {
      runId,
      kind,
      submissionId,
      agentId: ctx.submission.agentId,
      challengeId: ctx.challenge.id,
      runnerMs,
      recordedAt: now(),
    });

  const runId = `${submissionId}-${lease.attempts}`;
  const run = await scoreOnBundle(
    env,
    ctx,
    { bundleKey: ctx.challenge.bundleKey, manifest: ctx.challenge.bundleManifest },
    { runId, signal, now, chargeRunner },
  );
  if (!run.ok)
    return run.error.kind === "retry"
      ? retryOrFail(run.error.detail, run.error.unreachable)
      : recordFailure(run.error.code, run.error.reason);
  const scored = run.value;
  // The full suite of a split challenge is stored first (once), so every scored submission of
  // a split challenge has both (split-scoring.ts, docs/design.md §29).
  if (scored.full) await storeFullSuite(env.ARTIFACTS, db, scored.full, scored.report);
  const reportKey = `reports/${submissionId}.json`;
  await storeReport(env.ARTIFACTS, reportKey, scored.seen.report);
  // Written once: primary key, in the same batch as the `scored` status, and only on the live
  // version the run used (docs/design.md §30).
  const write = scoreWriteOf(ctx, scored, reportKey, now());
  if (!(await saveScore(db, write, now())) && !(await findScore(db, submissionId)))
    return retryOrFail(
      "the challenge's version changed while the run was scored; it is scored again on the live version",
    );
  await announceScore(env, db, ctx, now());
  // A candidate version being rescored re-runs this submission too (the row was written with
  // the score); a lost message is re-sent by the reconciler.
  await sendRescoreIfOpen(env, db, ctx.challenge.id, submissionId);
  return { action: "ack", note: `scored ${scored.breakdown.final.unrounded.text}` };
}

/** Everything a scored run writes (`buildScoreWrite` of its parts). */
export function scoreWriteOf(
  ctx: ScoringContext,
  run: ScoredRun,
  reportKey: string,
  now: number,
): ScoreWrite {
  return buildScoreWrite(
    ctx,
    run.input,
    run.breakdown,
    run.seen.report,
    run.judged,
    run.judgeMode,
    reportKey,
    now,
    run.usage,
  );
}

/** Everything one score writes, from the breakdown and the evidence. */
export function buildScoreWrite(
  ctx: ScoringContext,
  input: ScoreInput,
  b: Breakdown,
  report: RunReport,
  judged: RunJudgements,
  judgeMode: string,
  reportKey: string,
  now: number,
  usage: TraceUsage | null = null,
): ScoreWrite {
  const counts = new Map<
    string,
    { suite: "static" | "adversarial"; bucket: string; passed: number; total: number }
  >();
  const count = (suite: "static" | "adversarial", bucket: string, passed: boolean) => {
    const key = `${suite}:${bucket}`;
    const c = counts.get(key) ?? { suite, bucket, passed: 0, total: 0 };
    c.total += 1;
    if (passed) c.passed += 1;
    counts.set(key, c);
  };
  for (const t of report.staticTests) count("static", t.category, t.status === "passed");
  for (const t of report.adversarialTests)
    count("adversarial", `${t.origin}:${t.severity}`, t.status === "passed");
  return {
    score: {
      submissionId: ctx.submission.id,
      challengeId: ctx.challenge.id,
      agentId: ctx.submission.agentId,
      iteration: ctx.submission.iteration,
      profile: b.profile,
      profileVersion: b.profileVersion,
      family: b.family,
      finalUnrounded: b.final.unrounded.text,
      finalFraction: b.final.unrounded.fraction,
      finalRounded: b.final.rounded,
      band: b.band.key,
      breakdown: JSON.stringify(b),
      input: JSON.stringify(input),
      humanReview: b.flags.some((f) => f.code === "human-review"),
      judgeMode,
      reportKey,
      usage: usage ? JSON.stringify(usage) : null,
      challengeVersion: ctx.challenge.version,
      filesSha256: report.filesSha256 ?? null,
      submittedAt: ctx.submission.receivedAt,
      enteredAt: ctx.enteredAt,
      scoredAt: now,
    },
    components: b.components.map((c) => ({
      key: c.key,
      weight: c.weight,
      score: c.score.value,
      scoreText: c.score.text,
      contributionText: c.contribution.text,
    })),
    judgements: judged.records.map(({ judgement: j, target }) => ({
      task: j.task,
      target,
      judge: j.judge,
      source: j.source,
      dimensions: j.dimensions ? JSON.stringify(j.dimensions) : null,
      score: j.score,
      rationale: j.rationale,
      injectionSuspected: j.injectionSuspected,
    })),
    findings: report.scan.findings.map((f) => ({
      tool: f.tool,
      rule: f.rule,
      cwe: f.cwe,
      severity: f.severity,
      file: f.file,
      line: f.line,
      message: f.message,
    })),
    testCounts: [...counts.values()],
  };
}
