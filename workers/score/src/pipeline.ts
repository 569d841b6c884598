/**
 * @module score/pipeline
 * Scores one submission (docs/score.md): lease → runner → judges → engine → one D1 batch →
 * leaderboard → webhook events (publish.ts); an `agent` challenge also scores its trace.
 * Invariants: exactly-once effects on at-least-once delivery (the lease keeps consumers apart, the
 * score is written once, publishing is idempotent by submission id); a failure on our side never
 * fails the submission inside RETRY_WINDOW_MS; no outbound call outlives the lease.
 */
import { ChallengeManifestSchema, parseJson, type RunReport } from "@bouts/contracts";
import {
  claimScoringLease,
  createDb,
  deferScoring,
  failSubmission,
  findScoringContext,
  markSubmissionPublished,
  recordRunnerUsage,
  saveScore,
  sha256Hex,
  type Db,
  type ScoreWrite,
  type ScoringContext,
  type RunnerUsageKind,
  type SubmissionFailureCode,
} from "@bouts/db";
import type { Result } from "@bouts/result";
import {
  computeEngineering,
  computePairingProfile,
  submissionSeed,
  withInterval,
  type Breakdown,
  type ScoreInput,
} from "@bouts/scoring";
import { computeAgentRun, loadAgentPrelude } from "./agent-run.ts";
import { buildEngineeringInput } from "./build-input.ts";
import { evaluateRun } from "./evaluate.ts";
import { createJudgePanel, type JudgeEnv, type RunJudgements } from "./judging.ts";
import { createTestGenerator, type GeneratorEnv } from "./generation.ts";
import { requestRun, type RunnerEnv } from "./runner-client.ts";
import { publishFailed, publishScored, type LeaderboardRecorder } from "./publish.ts";
import { readRunUsage } from "./usage.ts";
import type { TraceUsage } from "@bouts/telemetry";
import { cutPublicPart, storeFullSuite } from "./split-scoring.ts";

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

/** Bindings and configuration the pipeline uses. */
export type ScoreEnv = RunnerEnv &
  JudgeEnv &
  GeneratorEnv & {
    DB: D1Database;
    ARTIFACTS: R2Bucket;
    WEBHOOKS: Queue;
    /** One ChallengeLeaderboard Durable Object per challenge, named by challenge id. */
    LEADERBOARD: { getByName(name: string): LeaderboardRecorder };
  };

/** What to do with the queue message. */
export type MessageOutcome =
  { action: "ack"; note: string } | { action: "retry"; delaySeconds: number; note: string };

/**
 * Checks that the stored archive is the one uploaded: present, and with the sha256 recorded at
 * upload. Returns the bytes, or why they cannot be run.
 */
export async function checkArtifact(
  bytes: Uint8Array | null,
  recordedSha256: string,
): Promise<Result<Uint8Array, string>> {
  if (!bytes) return { ok: false, error: "the submitted archive is no longer stored" };
  const actual = await sha256Hex(bytes);
  if (actual !== recordedSha256)
    return {
      ok: false,
      error: `the stored archive's sha256 is ${actual}, not the ${recordedSha256} recorded at upload`,
    };
  return { ok: true, value: bytes };
}

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
  const retryOrFail = async (detail: string): Promise<MessageOutcome> => {
    const since = ctx.submission.waitingSince ?? now();
    if (now() - since >= RETRY_WINDOW_MS) {
      const hours = Math.round(RETRY_WINDOW_MS / 3_600_000);
      const reason = `scoring could not complete on the platform's side for ${hours} h (${lease.attempts} attempts); an operator can re-judge it: ${detail}`;
      await failSubmission(db, submissionId, reason, now(), "infrastructure");
      await announceFailure(env, db, ctx, reason, now());
      return { action: "ack", note: reason };
    }
    const delaySeconds = computeRetryDelaySeconds(lease.attempts);
    await deferScoring(db, submissionId, detail, now(), now() + delaySeconds * 1000);
    return { action: "retry", delaySeconds, note: detail };
  };
  const fail = async (code: SubmissionFailureCode, reason: string): Promise<MessageOutcome> => {
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

  const manifest = ChallengeManifestSchema.safeParse(parseJson(ctx.challenge.bundleManifest));
  if (!manifest.success || !ctx.challenge.bundleKey)
    return fail("challenge-invalid", "the challenge has no valid bundle");
  const [artifact, bundle] = await Promise.all([
    env.ARTIFACTS.get(ctx.submission.artifactKey),
    env.ARTIFACTS.get(ctx.challenge.bundleKey),
  ]);
  if (!bundle) return retryOrFail("the challenge bundle is missing from storage");
  // The archive must be the one that was uploaded: a missing or altered object is never run,
  // and retrying cannot bring the original back.
  const submissionBytes = artifact ? new Uint8Array(await artifact.arrayBuffer()) : null;
  const integrity = await checkArtifact(submissionBytes, ctx.submission.artifactSha256);
  if (!integrity.ok) return fail("artifact-integrity", integrity.error);
  // Agent profile: the trace is checked before the run, so an unscorable submission costs none.
  const agent =
    ctx.challenge.profile === "agent" ? await loadAgentPrelude(env.ARTIFACTS, ctx) : null;
  if (agent && !agent.ok) return fail("trace-refused", agent.error.detail);

  const panel = createJudgePanel(env);
  if (!panel.ok) return retryOrFail(panel.error.detail);
  const generator = createTestGenerator(env);
  if (!generator.ok) return retryOrFail(generator.error.detail);

  const runId = `${submissionId}-${lease.attempts}`;
  const bundleBytes = new Uint8Array(await bundle.arrayBuffer());
  const run = await requestRun(env, {
    runId,
    submission: integrity.value,
    submissionSha256: ctx.submission.artifactSha256,
    bundle: bundleBytes,
    signal,
  });
  if (!run.ok)
    return run.error.retryable
      ? retryOrFail(run.error.detail)
      : fail(run.error.code, `the runner refused the archive: ${run.error.detail}`);
  await chargeRunner("run", runId, run.value.timings.totalMs);
  const brief = {
    id: ctx.challenge.id,
    title: ctx.challenge.title,
    summary: ctx.challenge.description,
  };
  // The run carries the deterministic generator's tests; a configured model adds its own while
  // the judges read the code (evaluate.ts).
  const { report, judged, trace } = await evaluateRun(env, {
    runId,
    report: run.value,
    manifest: manifest.data,
    challenge: brief,
    judges: panel.value.judges,
    generator: generator.value,
    submission: integrity.value,
    bundle: bundleBytes,
    agent: agent?.value ?? null,
    claimsJson: ctx.submission.claims,
    signal,
    chargeRunner: (ms) => chargeRunner("generated", `${runId}-model`, ms),
    traceView: (r) => cutPublicPart(r, manifest.data)?.report ?? r,
  });
  // A split challenge ranks on its public part; everything stored below is that part, and the
  // full suite goes to `full_scores` (split-scoring.ts, docs/design.md §29).
  const publicPart = cutPublicPart(report, manifest.data);
  const seen = publicPart ?? { report, manifest: manifest.data };
  const input = buildEngineeringInput({
    report: seen.report,
    manifest: seen.manifest,
    codeQuality: judged.codeQuality,
    deliverables: judged.deliverables,
  });
  if (!input.ok)
    return input.error.retryable
      ? retryOrFail(input.error.detail)
      : fail("scoring-refused", input.error.detail);
  const scored = computeEngineering(input.value);
  if (!scored.ok) {
    const e = scored.error;
    return fail(
      "scoring-refused",
      `the scoring engine refused the run: ${e.reason === "weight-rule" ? e.rule : e.field}: ${e.detail}`,
    );
  }
  let stored: { input: ScoreInput; breakdown: Breakdown } = {
    input: input.value,
    breakdown: scored.value,
  };
  let judgeMode = panel.value.mode;
  // Agent profile: the trace is scored too (agent-run.ts), with the engineering input as the
  // nested Objective.
  if (agent && trace) {
    const run = computeAgentRun({
      prelude: agent.value,
      report: seen.report,
      objective: input.value,
      judged: trace,
    });
    if (!run.ok)
      return run.error.retryable
        ? retryOrFail(run.error.detail)
        : fail("trace-refused", run.error.detail);
    stored = { input: run.value.input, breakdown: run.value.breakdown };
    judged.records.push(...run.value.judged.records);
    judged.failures.push(...run.value.judged.failures);
    if (run.value.judged.offlineTrace && judgeMode !== "offline") judgeMode += "+offline-trace";
  }

  // The 95 % interval (docs/scoring.md, "Score interval"), seeded by the submission id: the
  // same breakdown and id always give the same interval, and `npm run score -- --seed` redraws it.
  const withIv = withInterval(stored.breakdown, { seed: submissionSeed(submissionId) });
  if (!withIv.ok)
    return fail("scoring-refused", `the interval could not be drawn: ${withIv.error.detail}`);
  // The verdicts on the shared tests, for the board's paired comparison (docs/scoring.md,
  // "Paired comparison"). Auxiliary: a profile that cannot be built leaves the score as it is.
  const pairing = computePairingProfile(stored.input, withIv.value);
  if (!pairing.ok) console.error(`no pairing profile for ${submissionId}`, pairing.error);
  stored = {
    input: stored.input,
    breakdown:
      pairing.ok && pairing.value ? { ...withIv.value, pairing: pairing.value } : withIv.value,
  };

  if (publicPart) {
    const full = await storeFullSuite(env.ARTIFACTS, db, {
      submissionId,
      challengeId: ctx.challenge.id,
      agentId: ctx.submission.agentId,
      report,
      manifest: manifest.data,
      judged,
      agent: agent && trace ? { prelude: agent.value, trace } : null,
      now: now(),
    });
    // The agent reads the failure reason: it names nothing of the private part (logged instead).
    if (!full.ok) {
      console.error(`full suite of ${submissionId} not scored: ${full.error}`);
      return fail("scoring-refused", "the run could not be scored on the challenge's full suite");
    }
  }
  const usage = await readRunUsage(env.ARTIFACTS, ctx, agent?.value.trace ?? null);
  const reportKey = `reports/${submissionId}.json`;
  await env.ARTIFACTS.put(reportKey, JSON.stringify(seen.report), {
    httpMetadata: { contentType: "application/json" },
  });
  // Written once: primary key, in the same batch as the `scored` status.
  await saveScore(
    db,
    buildScoreWrite(
      ctx,
      stored.input,
      stored.breakdown,
      seen.report,
      judged,
      judgeMode,
      reportKey,
      now(),
      usage,
    ),
    now(),
  );
  await announceScore(env, db, ctx, now());
  return { action: "ack", note: `scored ${stored.breakdown.final.unrounded.text}` };
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
