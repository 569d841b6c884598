/**
 * @module score/score-run
 * One submission scored against one challenge bundle: runner → judges → engine → interval →
 * pairing profile, and the full suite of a split challenge, with the challenge's profile's own
 * steps (profile-steps.ts: before the run, its judges after it, its score around the
 * engineering input) chosen once. Shared by live scoring (the bundle of the live version,
 * pipeline.ts) and shadow rescoring (a candidate version's bundle, rescore.ts), so a rescore is
 * computed exactly as a live score would be. Writes nothing but the runner's usage (through
 * `chargeRunner`); the caller stores the result where it belongs.
 */
import {
  ChallengeManifestSchema,
  parseJson,
  type ChallengeManifest,
  type RunReport,
} from "@bouts/contracts";
import type { FullScoreRow, ScoringContext, SubmissionFailureCode } from "@bouts/db";
import type { Result } from "@bouts/result";
import {
  computeEngineering,
  computePairingProfile,
  submissionSeed,
  withInterval,
  type Breakdown,
  type ScoreInput,
} from "@bouts/scoring";
import type { TraceUsage } from "@bouts/telemetry";
import { buildEngineeringInput } from "./build-input.ts";
import { evaluateRun } from "./evaluate.ts";
import { createTestGenerator, resolveDrawKey } from "./generation.ts";
import { createJudgePanel, type RunJudgements } from "./judging.ts";
import type { ScoreEnv } from "./env.ts";
import { resolveProfileSteps, type StepRefusal } from "./profile-steps.ts";
import { requestRun } from "./runner-client.ts";
import { cutPublicPart, scoreFullSuite } from "./split-scoring.ts";
import { readRunUsage } from "./usage.ts";
import { sha256Hex } from "@bouts/db";

/** Which bundle to score against: the live version's, or a candidate's. */
export interface BundleTarget {
  bundleKey: string | null;
  /** The manifest's JSON as stored beside the bundle. */
  manifest: string | null;
}

/** Why a run did not produce a score: our fault (retry later), or the submission's (final). */
export type RunRefusal =
  /** `unreachable`: the runner could not be reached at all (retried within seconds). */
  | { kind: "retry"; detail: string; unreachable?: boolean }
  | { kind: "fail"; code: SubmissionFailureCode; reason: string };

/** A scored run: what the score stores, and the evidence it came from. */
export interface ScoredRun {
  input: ScoreInput;
  /** With its interval and, when it could be built, its pairing profile. */
  breakdown: Breakdown;
  judgeMode: string;
  /** The runner's report of the whole suite. */
  report: RunReport;
  /** What the stored score sees: the public part of a split challenge, else the whole run. */
  seen: { report: RunReport; manifest: ChallengeManifest };
  judged: RunJudgements;
  /** The full-suite score of a split challenge (its `reportKey` the live one); null otherwise. */
  full: FullScoreRow | null;
  usage: TraceUsage | null;
}

/** What one scoring attempt needs besides the submission and the bundle. */
export interface RunOptions {
  runId: string;
  signal: AbortSignal;
  now: () => number;
  /** Records runner time against the agent; absent for runs the agent did not cause. */
  chargeRunner?: (kind: "run" | "generated", runId: string, runnerMs: number) => Promise<unknown>;
}

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

const retry = (detail: string): { ok: false; error: RunRefusal } => ({
  ok: false,
  error: { kind: "retry", detail },
});
const runFailed = (
  code: SubmissionFailureCode,
  reason: string,
): { ok: false; error: RunRefusal } => ({
  ok: false,
  error: { kind: "fail", code, reason },
});
/** A profile step's refusal as the run's: retried when ours, else failed with its code. */
const stepRefused = (e: StepRefusal): { ok: false; error: RunRefusal } =>
  e.retryable ? retry(e.detail) : runFailed(e.code, e.detail);

/** Scores `ctx`'s submission against `target`'s bundle (docs/score.md). Never throws for expected failures. */
export async function scoreOnBundle(
  env: ScoreEnv,
  ctx: ScoringContext,
  target: BundleTarget,
  opts: RunOptions,
): Promise<Result<ScoredRun, RunRefusal>> {
  const submissionId = ctx.submission.id;
  const manifest = ChallengeManifestSchema.safeParse(parseJson(target.manifest));
  if (!manifest.success || !target.bundleKey)
    return runFailed("challenge-invalid", "the challenge has no valid bundle");
  const [artifact, bundle] = await Promise.all([
    env.ARTIFACTS.get(ctx.submission.artifactKey),
    env.ARTIFACTS.get(target.bundleKey),
  ]);
  if (!bundle) return retry("the challenge bundle is missing from storage");
  // The archive must be the one that was uploaded: a missing or altered object is never run,
  // and retrying cannot bring the original back.
  const submissionBytes = artifact ? new Uint8Array(await artifact.arrayBuffer()) : null;
  const integrity = await checkArtifact(submissionBytes, ctx.submission.artifactSha256);
  if (!integrity.ok) return runFailed("artifact-integrity", integrity.error);
  // The profile's steps, chosen once. What it needs (the agent profile's trace) is checked
  // before the run, so a submission it cannot score costs none.
  const steps = resolveProfileSteps(ctx.challenge.profile);
  if (!steps)
    return runFailed(
      "challenge-invalid",
      `the challenge's profile ${JSON.stringify(ctx.challenge.profile)} is not one the engine scores`,
    );
  const profile = await steps.prepare(env, ctx);
  if (!profile.ok) return stepRefused(profile.error);

  const panel = createJudgePanel(env);
  if (!panel.ok) return retry(panel.error.detail);
  const generator = createTestGenerator(env);
  if (!generator.ok) return retry(generator.error.detail);

  const bundleBytes = new Uint8Array(await bundle.arrayBuffer());
  // The generated tests are drawn by the platform's key over this bundle, never by the
  // archive's bytes (docs/design.md §31); a rescore on a candidate bundle draws with its own.
  const drawKey = await resolveDrawKey(env, bundleBytes);
  if (!drawKey.ok) return retry(drawKey.error.detail);
  const run = await requestRun(env, {
    runId: opts.runId,
    submission: integrity.value,
    submissionSha256: ctx.submission.artifactSha256,
    drawKey: drawKey.value,
    bundle: bundleBytes,
    signal: opts.signal,
  });
  if (!run.ok)
    return run.error.retryable
      ? {
          ok: false,
          error: {
            kind: "retry",
            detail: run.error.detail,
            ...(run.error.unreachable ? { unreachable: true } : {}),
          },
        }
      : runFailed(run.error.code, `the runner refused the archive: ${run.error.detail}`);
  await opts.chargeRunner?.("run", opts.runId, run.value.timings.totalMs);
  const brief = {
    id: ctx.challenge.id,
    title: ctx.challenge.title,
    summary: ctx.challenge.description,
  };
  // The run carries the deterministic generator's tests; a configured model adds its own while
  // the judges read the code, and the profile's judges read the final report (evaluate.ts).
  const evaluation = await evaluateRun(env, {
    runId: opts.runId,
    report: run.value,
    manifest: manifest.data,
    challenge: brief,
    judges: panel.value.judges,
    generator: generator.value,
    submission: integrity.value,
    bundle: bundleBytes,
    signal: opts.signal,
    chargeRunner: async (ms) => {
      await opts.chargeRunner?.("generated", `${opts.runId}-model`, ms);
    },
    judgeProfile: (final) =>
      profile.value.judge({
        judges: panel.value.judges,
        challenge: brief,
        manifest: manifest.data,
        report: final,
        readable: (r) => cutPublicPart(r, manifest.data)?.report ?? r,
        claimsJson: ctx.submission.claims,
        signal: opts.signal,
      }),
  });
  const { report, judged, profile: profileJudged } = evaluation;
  // A split challenge ranks on its public part; the stored score is that part, and the full
  // suite is scored apart (split-scoring.ts, docs/design.md §29).
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
      ? retry(input.error.detail)
      : runFailed("scoring-refused", input.error.detail);
  const scored = computeEngineering(input.value);
  if (!scored.ok) {
    const e = scored.error;
    return runFailed(
      "scoring-refused",
      `the scoring engine refused the run: ${e.reason === "weight-rule" ? e.rule : e.field}: ${e.detail}`,
    );
  }
  // The profile's score around the engineering input (the agent profile's: its trace's, with
  // the engineering input as the nested Objective), and its judges' records beside the run's.
  const profiled = profileJudged.score({
    report: seen.report,
    objective: input.value,
    engineering: scored.value,
  });
  if (!profiled.ok) return stepRefused(profiled.error);
  const stored: { input: ScoreInput; breakdown: Breakdown } = profiled.value;
  judged.records.push(...profileJudged.records);
  judged.failures.push(...profileJudged.failures);
  const judgeMode = profileJudged.judgeMode(panel.value.mode);

  // The 95 % interval (docs/scoring.md, "Score interval"), seeded by the submission id: the
  // same breakdown and id always give the same interval, and `npm run score -- --seed` redraws it.
  const withIv = withInterval(stored.breakdown, { seed: submissionSeed(submissionId) });
  if (!withIv.ok)
    return runFailed("scoring-refused", `the interval could not be drawn: ${withIv.error.detail}`);
  // The verdicts on the shared tests, for the board's paired comparison (docs/scoring.md,
  // "Paired comparison"). Auxiliary: a profile that cannot be built leaves the score as it is.
  const pairing = computePairingProfile(stored.input, withIv.value);
  if (!pairing.ok) console.error(`no pairing profile for ${submissionId}`, pairing.error);
  const breakdown =
    pairing.ok && pairing.value ? { ...withIv.value, pairing: pairing.value } : withIv.value;

  let full: FullScoreRow | null = null;
  if (publicPart) {
    const row = scoreFullSuite({
      submissionId,
      challengeId: ctx.challenge.id,
      agentId: ctx.submission.agentId,
      report,
      manifest: manifest.data,
      judged,
      profile: profileJudged,
      now: opts.now(),
    });
    // The agent reads the failure reason: it names nothing of the private part (logged instead).
    if (!row.ok) {
      console.error(`full suite of ${submissionId} not scored: ${row.error}`);
      return runFailed(
        "scoring-refused",
        "the run could not be scored on the challenge's full suite",
      );
    }
    full = row.value;
  }
  const usage = await readRunUsage(
    env.ARTIFACTS,
    ctx,
    profile.value.trace,
    profile.value.observedUsage,
  );
  return {
    ok: true,
    value: { input: stored.input, breakdown, judgeMode, report, seen, judged, full, usage },
  };
}

/** Stores a run report as JSON under `key` (R2); reports are keyed by submission and version. */
export async function storeReport(
  artifacts: R2Bucket,
  key: string,
  report: RunReport,
): Promise<void> {
  await artifacts.put(key, JSON.stringify(report), {
    httpMetadata: { contentType: "application/json" },
  });
}
