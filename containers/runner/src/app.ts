/**
 * @module runner/app
 * The runner's HTTP surface (Hono, on the edge kit's app shell: `@bouts/edge`). Outcomes
 * follow one rule: a submission that fails is a successful run (200 with a RunReport); a
 * request that cannot be run as sent is a 4xx problem+json naming what is wrong; only a fault
 * of the runner itself (the sandbox is unavailable, an unexpected error) is a 5xx. Every
 * expected error goes through `toProblem`, an exhaustive switch over the reasons; the edge kit
 * answers the rest (no route: 404, or 405 with `Allow`; an unexpected throw: a generic 500).
 * Problem `type`s are the platform's `urn:bouts:problem:<code>`. With RUNNER_SHARED_SECRET set,
 * every request but `GET /healthz` must be signed (`@bouts/runner-auth`) before any route runs.
 */
import { randomUUID } from "node:crypto";
import type { Context, Hono } from "hono";
import type { BlankEnv } from "hono/types";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { z } from "zod";
import {
  buildProblem,
  RunGeneratedRequestSchema,
  RunJobRequestSchema,
  type ProblemFieldError,
  type RunJobRequest,
  type RunnerProblem,
  type RunReport,
} from "@bouts/contracts";
import { createApp, problemResponse } from "@bouts/edge";
import { err, ok, type Result } from "@bouts/result";
import {
  authenticateRunnerRequest,
  createReplayGuard,
  describeRunnerAuthError,
  type RunnerAuthError,
} from "@bouts/runner-auth";
import {
  describeBundleError,
  computeSha256,
  prepareChallenge,
  type BundleError,
  type PreparedChallenge,
} from "./challenge/bundle.ts";
import { runChallengeQa, type QaError } from "./challenge/qa.ts";
import { runCachedChallengeQa } from "./challenge/qa-cache.ts";
import { runGeneratedSuite } from "./generated-run.ts";
import { runJob, type JobContext, type JobError, type RunnerEnvironment } from "./job.ts";
import { resolvePrepareOptions } from "./challenge/prepare-options.ts";
import type { SelfTestReport } from "./sandbox/self-test.ts";
import { guardRun } from "./guard.ts";
import { runCachedJob } from "./run/run-cache.ts";

/** Everything a request can fail with before or instead of a verdict. */
export type ServiceError =
  | { reason: "missing-part"; part: string }
  | { reason: "invalid-job"; issues: string[] }
  | { reason: "request-too-large"; limit: number }
  | { reason: "bundle"; error: BundleError }
  | { reason: "job"; error: JobError }
  | { reason: "sandbox-unavailable"; report: RunReport }
  | { reason: "run-fault"; detail: string }
  | { reason: "artifact-integrity"; expected: string; actual: string }
  | { reason: "unauthenticated"; error: RunnerAuthError };

/** An `invalid-job` issue (`path: message`) as a field error; one without a path is the job's. */
function toFieldError(issue: string): ProblemFieldError {
  const at = issue.indexOf(": ");
  return at > 0
    ? { path: issue.slice(0, at), message: issue.slice(at + 2) }
    : { path: "job", message: issue };
}

/**
 * Maps a service error to an RFC 9457 problem (`type` `urn:bouts:problem:<code>`), with the
 * platform's members: `errors` for an invalid job, `rule` (and `entry`) for a refused
 * archive, and the runner's own `report` for a run the sandbox could not start. Exhaustive: a
 * new reason fails to compile.
 */
export function toProblem(e: ServiceError): RunnerProblem {
  switch (e.reason) {
    case "missing-part":
      return buildProblem(
        400,
        "missing-part",
        "Missing multipart part",
        `the request has no '${e.part}' part`,
      );
    case "invalid-job":
      return buildProblem(400, "invalid-job", "Invalid job", e.issues.join("; "), {
        errors: e.issues.map(toFieldError),
      });
    case "request-too-large":
      return buildProblem(
        413,
        "request-too-large",
        "Request too large",
        `requests are limited to ${e.limit} bytes`,
      );
    case "bundle":
      // The install sandbox failing to start is ours, not the bundle's.
      if (e.error.reason === "dependencies" && e.error.rule === "sandbox")
        return buildProblem(
          503,
          "sandbox-unavailable",
          "Sandbox unavailable",
          `the bundle's dependency install could not start: ${e.error.detail}`,
        );
      return buildProblem(
        422,
        `bundle-${e.error.reason}`,
        "Challenge bundle refused",
        describeBundleError(e.error),
      );
    case "sandbox-unavailable":
      return {
        ...buildProblem(
          503,
          "sandbox-unavailable",
          "Sandbox unavailable",
          e.report.infrastructure?.message ?? "",
        ),
        report: e.report,
      };
    case "artifact-integrity":
      return buildProblem(
        422,
        "artifact-integrity",
        "Archive is not the one uploaded",
        `the submission's sha256 is ${e.actual}, not the ${e.expected} recorded at upload; it was not run`,
      );
    case "unauthenticated":
      return buildProblem(
        401,
        e.error.reason === "timestamp-out-of-tolerance" ? "clock-skew" : "unauthenticated",
        e.error.reason === "timestamp-out-of-tolerance"
          ? "Request timestamp outside the window"
          : "Request not authenticated",
        `${describeRunnerAuthError(e.error)}; nothing was run`,
      );
    case "run-fault":
      return buildProblem(
        500,
        "internal",
        "Internal error",
        `the run failed on the runner's side and was stopped (${e.detail}); other runs are unaffected`,
      );
    case "job":
      switch (e.error.reason) {
        case "submission-rejected": {
          const refusal = e.error.error;
          return buildProblem(
            422,
            "submission-rejected",
            "Submission archive refused",
            e.error.message,
            {
              rule: refusal.reason,
              ...(refusal.entry !== undefined ? { entry: refusal.entry } : {}),
            },
          );
        }
        case "limit-above-ceiling":
          return buildProblem(
            422,
            "limit-above-ceiling",
            "Limit above the runner's ceiling",
            `${e.error.key}: requested ${e.error.requested}, ceiling ${e.error.ceiling}`,
          );
        case "dependencies":
          // The install sandbox failing to start is ours, not the submission's.
          if (e.error.rule === "sandbox")
            return buildProblem(
              503,
              "sandbox-unavailable",
              "Sandbox unavailable",
              `the dependency install could not start: ${e.error.detail}`,
            );
          return buildProblem(
            422,
            "dependencies",
            "Submission dependencies refused",
            e.error.detail,
            { rule: e.error.rule },
          );
        case "invalid-state":
          return buildProblem(500, "internal", "Internal error", "job state machine misuse");
      }
  }
}

/** The problem+json answer to a service error; a 5xx is logged. */
function serviceErrorResponse(e: ServiceError): Response {
  const problem = toProblem(e);
  if (problem.status >= 500) console.error(`runner: ${problem.type}: ${problem.detail}`);
  return problemResponse(problem);
}

/** A QA that could not judge the bundle: the runner's own failure is a 503, never a verdict. */
function qaProblem(e: QaError): ServiceError {
  return e.reason === "runner-infrastructure"
    ? { reason: "sandbox-unavailable", report: e.report }
    : { reason: "job", error: e };
}

/** The multipart parts of a request: each named file, and the `job` part parsed as JSON. */
interface RequestParts {
  files: Record<string, Uint8Array>;
  job: unknown;
}

async function readParts(c: Context, names: string[]): Promise<Result<RequestParts, ServiceError>> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    return err({ reason: "missing-part", part: names[0] ?? "body" });
  }
  const files: Record<string, Uint8Array> = {};
  for (const name of names) {
    const v = form.get(name);
    if (!(v instanceof Blob)) return err({ reason: "missing-part", part: name });
    files[name] = new Uint8Array(await v.arrayBuffer());
  }
  const jobPart = form.get("job");
  let job: unknown = {};
  if (jobPart !== null) {
    try {
      job = JSON.parse(typeof jobPart === "string" ? jobPart : await jobPart.text());
    } catch {
      return err({ reason: "invalid-job", issues: ["job is not JSON"] });
    }
  }
  return ok({ files, job });
}

/** A run request as read: the job validated by its schema, the submission, the prepared bundle. */
interface RunRequest<T> {
  job: T;
  submission: Uint8Array;
  challenge: PreparedChallenge;
}

/** Creates the app for one runner environment. */
export function createRunnerApp(
  environment: RunnerEnvironment,
  selfTest: SelfTestReport | null,
): Hono {
  const { config } = environment;
  const app = createApp<BlankEnv>();
  const maxBody = config.MAX_ARCHIVE_BYTES * 2 + 1024 * 1024;
  let active = 0;
  const prepareOptions = resolvePrepareOptions(environment);

  app.get("/healthz", (c) =>
    c.json({
      status: "ok",
      activeRuns: active,
      capacity: config.MAX_CONCURRENT_RUNS,
      // Sandbox slots (uid pairs) held by runs: a run that never gave its slot back shows here
      // even after its request has ended.
      slotsHeld: environment.uidPool.held,
      authentication: config.SHARED_SECRET !== undefined ? "hmac-sha256" : "none (loopback only)",
      runtimes: environment.runtimeVersions,
      isolation: selfTest
        ? { checks: selfTest.checks, cgroups: selfTest.cgroups }
        : { checks: [], cgroups: "self-test disabled" },
    }),
  );

  // /healthz (registered above, so it answers before these) stays open: the Container's ping
  // and a load balancer's probe carry no signature, and it runs nothing.
  // Before every other route: the size limit (so authentication reads a bounded body), then the
  // signature. A refused request reaches no handler, so nothing is unpacked or run.
  app.use(
    "*",
    bodyLimit({
      maxSize: maxBody,
      onError: () => serviceErrorResponse({ reason: "request-too-large", limit: maxBody }),
    }),
  );
  const secret = config.SHARED_SECRET;
  if (secret !== undefined) {
    const replay = createReplayGuard();
    app.use("*", async (c, next) => {
      const url = new URL(c.req.url);
      const r = await authenticateRunnerRequest({
        method: c.req.method,
        path: url.pathname + url.search,
        headers: c.req.raw.headers,
        readBody: async () => new Uint8Array(await c.req.arrayBuffer()),
        secret,
        now: new Date(),
        replay,
      });
      if (!r.ok) {
        console.warn(`runner: refused ${c.req.method} ${c.req.path}: ${r.error.reason}`);
        return problemResponse(toProblem({ reason: "unauthenticated", error: r.error }), {
          "WWW-Authenticate":
            'Bouts-HMAC-SHA256 headers="x-bouts-timestamp x-bouts-nonce x-bouts-signature"',
        });
      }
      await next();
    });
  }

  /** Reads a run request: both archives, the job validated by `schema`, the prepared bundle. */
  async function readRunRequest<T>(
    c: Context,
    schema: { safeParse(v: unknown): z.ZodSafeParseResult<T> },
  ): Promise<Result<RunRequest<T>, ServiceError>> {
    const parts = await readParts(c, ["submission", "bundle"]);
    if (!parts.ok) return parts;
    const parsed = schema.safeParse(parts.value.job);
    if (!parsed.success)
      return err({
        reason: "invalid-job",
        issues: parsed.error.issues.map((i) => `${i.path.join(".") || "job"}: ${i.message}`),
      });
    const challenge = await prepareChallenge(parts.value.files.bundle!, prepareOptions);
    if (!challenge.ok) return err({ reason: "bundle", error: challenge.error });
    return ok({
      job: parsed.data,
      submission: parts.value.files.submission!,
      challenge: challenge.value,
    });
  }

  // Every route that runs something is guarded: a fault its own code could not catch ends
  // that request with a 500 (an infrastructure error for that run alone), never the process.
  const guarded = createMiddleware(async (c, next) => {
    active += 1;
    try {
      const r = await guardRun(`${c.req.method} ${c.req.path}`, () => next());
      if (!r.ok) c.res = serviceErrorResponse({ reason: "run-fault", detail: r.error.detail });
    } finally {
      active -= 1;
    }
  });

  /** A run, through the run cache when `RUNNER_RUN_CACHE_DIR` is set (one log line each then). */
  async function runReportedJob(ctx: JobContext): Promise<Result<RunReport, JobError>> {
    const dir = config.RUN_CACHE_DIR;
    if (!dir) return runJob(ctx);
    const t0 = performance.now();
    const r = await runCachedJob(ctx, dir);
    if (!r.ok) return r;
    const what = `runner: run ${ctx.runId} of submission ${ctx.submissionSha256} (bundle ${ctx.challenge.sha256})`;
    console.log(
      r.value.cached
        ? `${what}: cached report reused`
        : `${what}: ran in ${Math.round(performance.now() - t0)} ms (cache ${r.value.miss}; ${r.value.notStored === null ? "stored" : `not stored: ${r.value.notStored}`})`,
    );
    return ok(r.value.report);
  }

  app.post("/v1/runs", guarded, async (c) => {
    const req = await readRunRequest(c, RunJobRequestSchema);
    if (!req.ok) return serviceErrorResponse(req.error);
    const job: RunJobRequest = req.value.job;
    const submission = req.value.submission;
    // The runner never trusts its caller: bytes other than those recorded at upload never run.
    const sha256 = computeSha256(submission);
    if (job.submissionSha256 !== undefined && job.submissionSha256 !== sha256)
      return serviceErrorResponse({
        reason: "artifact-integrity",
        expected: job.submissionSha256,
        actual: sha256,
      });
    const ctx: JobContext = {
      runId: job.runId ?? randomUUID(),
      challenge: req.value.challenge,
      submission,
      submissionSha256: sha256,
      ...(job.drawKey !== undefined ? { drawKey: job.drawKey } : {}),
      requestedLimits: job.limits ?? {},
      environment,
    };
    const r = await runReportedJob(ctx);
    if (!r.ok) return serviceErrorResponse({ reason: "job", error: r.error });
    if (r.value.infrastructure?.reason === "sandbox-unavailable")
      return serviceErrorResponse({ reason: "sandbox-unavailable", report: r.value });
    return c.json(r.value);
  });

  // A suite written elsewhere (the score role's model-backed generator), checked against the
  // reference solution before it counts (generated-run.ts).
  app.post("/v1/runs/generated", guarded, async (c) => {
    const req = await readRunRequest(c, RunGeneratedRequestSchema);
    if (!req.ok) return serviceErrorResponse(req.error);
    const r = await runGeneratedSuite(environment, req.value);
    if (!r.ok) return serviceErrorResponse(r.error);
    return c.json(r.value);
  });

  app.post("/v1/challenges/qa", guarded, async (c) => {
    const parts = await readParts(c, ["bundle"]);
    if (!parts.ok) return serviceErrorResponse(parts.error);
    const challenge = await prepareChallenge(parts.value.files.bundle!, prepareOptions);
    if (!challenge.ok) return serviceErrorResponse({ reason: "bundle", error: challenge.error });
    const sha = challenge.value.sha256;
    if (!config.QA_CACHE_DIR) {
      const qa = await runChallengeQa(environment, challenge.value, config.QA_REPEATS);
      if (!qa.ok) return serviceErrorResponse(qaProblem(qa.error));
      return c.json(qa.value);
    }
    const t0 = performance.now();
    const qa = await runCachedChallengeQa(
      environment,
      challenge.value,
      config.QA_REPEATS,
      config.QA_CACHE_DIR,
    );
    if (!qa.ok) return serviceErrorResponse(qaProblem(qa.error));
    // One line per QA, read by `npm start` to say which challenges reused their report.
    console.log(
      qa.value.cached
        ? `runner: challenge QA of bundle ${sha}: cached report reused`
        : `runner: challenge QA of bundle ${sha}: ran in ${Math.round(performance.now() - t0)} ms (cache ${qa.value.miss}; ${qa.value.stored ? "stored" : "not stored: not publishable"})`,
    );
    return c.json(qa.value.report);
  });

  return app;
}
