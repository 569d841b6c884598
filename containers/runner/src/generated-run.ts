/**
 * @module runner/generated-run
 * Runs a generated suite written elsewhere (the score role's model-backed generator) for
 * `POST /v1/runs/generated`: every test runs first against the challenge's reference solution,
 * and only the tests the reference passes run against the submission and count. Invariants:
 * nothing here trusts the suite beyond running it sandboxed; a suite that is empty or holds a
 * file not of the challenge's runtime runs nothing; a test the reference fails is `dropped`
 * with the reference's message, never run against the submission.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type {
  GeneratedRunResult,
  GeneratedSuite,
  RunGeneratedRequest,
  RunReport,
  Runtime,
} from "@bouts/contracts";
import { computeSha256, packDir, type PreparedChallenge } from "./challenge/bundle.ts";
import { runJob, type JobError, type RunnerEnvironment } from "./job.ts";
import { err, ok, type Result } from "@bouts/result";

/** Why a generated suite was not run to a result (each is also a `ServiceError` of app.ts). */
export type GeneratedRunError =
  | { reason: "invalid-job"; issues: string[] }
  | { reason: "job"; error: JobError }
  | { reason: "sandbox-unavailable"; report: RunReport };

/** A parsed `/v1/runs/generated` request with its prepared challenge. */
export interface GeneratedRunRequest {
  job: RunGeneratedRequest;
  submission: Uint8Array;
  challenge: PreparedChallenge;
}

/** Refuses an empty suite and a file that is not a test file of the challenge's runtime. */
export function validateGeneratedSuite(
  suite: GeneratedSuite,
  runtime: Runtime,
): Result<GeneratedSuite, GeneratedRunError> {
  if (suite.tests.length === 0)
    return err({ reason: "invalid-job", issues: ["suite.tests: the suite is empty"] });
  const runtimeFile = runtime === "node22" ? /\.test\.mjs$/ : /\.py$/;
  const foreign = suite.files.find((f) => !runtimeFile.test(f.path));
  if (foreign)
    return err({
      reason: "invalid-job",
      issues: [`suite.files: ${foreign.path} is not a ${runtime} test file`],
    });
  return ok(suite);
}

/** Runs the suite on the reference solution, then the tests it passes on the submission. */
export async function runGeneratedSuite(
  environment: RunnerEnvironment,
  { job, submission, challenge }: GeneratedRunRequest,
): Promise<Result<GeneratedRunResult, GeneratedRunError>> {
  const valid = validateGeneratedSuite(job.suite, challenge.manifest.runtime);
  if (!valid.ok) return valid;
  const runId = job.runId ?? randomUUID();
  const reference = await packDir(path.join(challenge.root, "reference"));
  const onReference = await runJob({
    runId: `${runId}-ref`,
    challenge,
    submission: reference,
    submissionSha256: computeSha256(reference),
    requestedLimits: job.limits ?? {},
    environment,
    generation: { suite: job.suite, onlyGenerated: true },
  });
  if (!onReference.ok) return err({ reason: "job", error: onReference.error });
  if (onReference.value.infrastructure?.reason === "sandbox-unavailable")
    return err({ reason: "sandbox-unavailable", report: onReference.value });
  const refById = new Map(onReference.value.adversarialTests.map((t) => [t.id, t]));
  const dropped = job.suite.tests
    .filter((t) => refById.get(t.id)?.status !== "passed")
    .map((t) => ({
      id: t.id,
      reason: `fails on the reference solution: ${refById.get(t.id)?.message ?? "not run"}`.slice(
        0,
        300,
      ),
    }));
  const kept = job.suite.tests.filter((t) => refById.get(t.id)?.status === "passed");
  const generator = {
    ...job.suite.generator,
    status: "ok" as const,
    detail: null,
    candidates: job.suite.tests.length,
    selected: kept.length,
    dropped,
  };
  let tests: GeneratedRunResult["tests"] = [];
  let infrastructure: GeneratedRunResult["infrastructure"] = null;
  if (kept.length > 0) {
    const r = await runJob({
      runId,
      challenge,
      submission,
      submissionSha256: computeSha256(submission),
      requestedLimits: job.limits ?? {},
      environment,
      generation: { suite: { ...job.suite, tests: kept }, onlyGenerated: true },
    });
    if (!r.ok) return err({ reason: "job", error: r.error });
    if (r.value.infrastructure?.reason === "sandbox-unavailable")
      return err({ reason: "sandbox-unavailable", report: r.value });
    tests = r.value.adversarialTests;
    infrastructure = r.value.infrastructure;
  }
  return ok({ schemaVersion: 1, runId, tests, dropped, generator, infrastructure });
}
