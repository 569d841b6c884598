/**
 * @module runner/app
 * The runner's HTTP surface (Hono). Outcomes follow one rule: a submission that fails is a
 * successful run (200 with a RunReport); a request that cannot be run as sent is a 4xx
 * problem+json naming what is wrong; only a fault of the runner itself (the sandbox is
 * unavailable, an unexpected error) is a 5xx. Every error goes through `toHttpError`, an
 * exhaustive switch over the reasons.
 */
import { randomUUID } from "node:crypto";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { z } from "zod";
import {
  RunGeneratedRequestSchema,
  RunJobRequestSchema,
  type RunJobRequest,
  type RunReport,
} from "@bouts/contracts";
import {
  describeBundleError,
  computeSha256,
  prepareChallenge,
  type BundleError,
  type PreparedChallenge,
} from "./challenge/bundle.ts";
import { runChallengeQa } from "./challenge/qa.ts";
import { runGeneratedSuite } from "./generated-run.ts";
import { resolveUnpackLimits, runJob, type JobError, type RunnerEnvironment } from "./job.ts";
import type { SelfTestReport } from "./sandbox/self-test.ts";
import { guardRun } from "./guard.ts";

/** Everything a request can fail with before or instead of a verdict. */
export type ServiceError =
  | { reason: "missing-part"; part: string }
  | { reason: "invalid-job"; issues: string[] }
  | { reason: "request-too-large"; limit: number }
  | { reason: "bundle"; error: BundleError }
  | { reason: "job"; error: JobError }
  | { reason: "sandbox-unavailable"; report: RunReport }
  | { reason: "run-fault"; detail: string }
  | { reason: "artifact-integrity"; expected: string; actual: string };

interface Problem {
  status: number;
  type: string;
  title: string;
  detail: string;
  extra?: Record<string, unknown>;
}

/** Maps a service error to an RFC 9457 problem. Exhaustive: a new reason fails to compile. */
export function toHttpError(e: ServiceError): Problem {
  switch (e.reason) {
    case "missing-part":
      return {
        status: 400,
        type: "missing-part",
        title: "Missing multipart part",
        detail: `the request has no '${e.part}' part`,
      };
    case "invalid-job":
      return {
        status: 400,
        type: "invalid-job",
        title: "Invalid job",
        detail: e.issues.join("; "),
        extra: { issues: e.issues },
      };
    case "request-too-large":
      return {
        status: 413,
        type: "request-too-large",
        title: "Request too large",
        detail: `requests are limited to ${e.limit} bytes`,
      };
    case "bundle":
      return {
        status: 422,
        type: `bundle-${e.error.reason}`,
        title: "Challenge bundle refused",
        detail: describeBundleError(e.error),
      };
    case "sandbox-unavailable":
      return {
        status: 503,
        type: "sandbox-unavailable",
        title: "Sandbox unavailable",
        detail: e.report.infrastructure?.message ?? "",
        extra: { report: e.report },
      };
    case "artifact-integrity":
      return {
        status: 422,
        type: "artifact-integrity",
        title: "Archive is not the one uploaded",
        detail: `the submission's sha256 is ${e.actual}, not the ${e.expected} recorded at upload; it was not run`,
      };
    case "run-fault":
      return {
        status: 500,
        type: "internal",
        title: "Internal error",
        detail: `the run failed on the runner's side and was stopped (${e.detail}); other runs are unaffected`,
      };
    case "job":
      switch (e.error.reason) {
        case "submission-rejected":
          return {
            status: 422,
            type: "submission-rejected",
            title: "Submission archive refused",
            detail: e.error.message,
            extra: { entryReason: e.error.error.reason },
          };
        case "limit-above-ceiling":
          return {
            status: 422,
            type: "limit-above-ceiling",
            title: "Limit above the runner's ceiling",
            detail: `${e.error.key}: requested ${e.error.requested}, ceiling ${e.error.ceiling}`,
          };
        case "invalid-state":
          return {
            status: 500,
            type: "internal",
            title: "Internal error",
            detail: "job state machine misuse",
          };
      }
  }
}

function problem(c: Context, e: ServiceError): Response {
  const p = toHttpError(e);
  if (p.status >= 500) console.error(`runner: ${p.type}: ${p.detail}`);
  return c.body(
    JSON.stringify({
      type: `https://bouts.dev/problems/${p.type}`,
      title: p.title,
      status: p.status,
      detail: p.detail,
      ...p.extra,
    }),
    p.status as 400,
    {
      "content-type": "application/problem+json",
    },
  );
}

async function readParts(
  c: Context,
  names: string[],
): Promise<
  { ok: true; files: Record<string, Uint8Array>; job: unknown } | { ok: false; error: ServiceError }
> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    return { ok: false, error: { reason: "missing-part", part: names[0] ?? "body" } };
  }
  const files: Record<string, Uint8Array> = {};
  for (const name of names) {
    const v = form.get(name);
    if (!(v instanceof Blob)) return { ok: false, error: { reason: "missing-part", part: name } };
    files[name] = new Uint8Array(await v.arrayBuffer());
  }
  const jobPart = form.get("job");
  let job: unknown = {};
  if (jobPart !== null) {
    try {
      job = JSON.parse(typeof jobPart === "string" ? jobPart : await jobPart.text());
    } catch {
      return { ok: false, error: { reason: "invalid-job", issues: ["job is not JSON"] } };
    }
  }
  return { ok: true, files, job };
}

/** Creates the app for one runner environment. */
export function createRunnerApp(
  environment: RunnerEnvironment,
  selfTest: SelfTestReport | null,
): Hono {
  const { config } = environment;
  const app = new Hono();
  const maxBody = config.MAX_ARCHIVE_BYTES * 2 + 1024 * 1024;
  let active = 0;
  const prepareOptions = {
    workDir: config.WORK_DIR,
    unpackLimits: resolveUnpackLimits(config),
    pythonToolsVenv: config.PYTHON_TOOLS,
  };

  app.get("/healthz", (c) =>
    c.json({
      status: "ok",
      activeRuns: active,
      capacity: config.MAX_CONCURRENT_RUNS,
      runtimes: environment.runtimeVersions,
      isolation: selfTest
        ? { checks: selfTest.checks, cgroups: selfTest.cgroups }
        : { checks: [], cgroups: "self-test disabled" },
    }),
  );

  const limitBody = bodyLimit({
    maxSize: maxBody,
    onError: (c) => problem(c, { reason: "request-too-large", limit: maxBody }),
  });

  /** Reads a run request: both archives, the job validated by `schema`, the prepared bundle. */
  async function readRunRequest<T>(
    c: Context,
    schema: { safeParse(v: unknown): z.ZodSafeParseResult<T> },
  ): Promise<
    | { ok: true; job: T; submission: Uint8Array; challenge: PreparedChallenge }
    | { ok: false; response: Response }
  > {
    const parts = await readParts(c, ["submission", "bundle"]);
    if (!parts.ok) return { ok: false, response: problem(c, parts.error) };
    const parsed = schema.safeParse(parts.job);
    if (!parsed.success)
      return {
        ok: false,
        response: problem(c, {
          reason: "invalid-job",
          issues: parsed.error.issues.map((i) => `${i.path.join(".") || "job"}: ${i.message}`),
        }),
      };
    const challenge = await prepareChallenge(parts.files.bundle!, prepareOptions);
    if (!challenge.ok)
      return { ok: false, response: problem(c, { reason: "bundle", error: challenge.error }) };
    return {
      ok: true,
      job: parsed.data,
      submission: parts.files.submission!,
      challenge: challenge.value,
    };
  }

  // Every route that runs something is guarded: a fault its own code could not catch ends
  // that request with a 500 (an infrastructure error for that run alone), never the process.
  const guarded = createMiddleware(async (c, next) => {
    active += 1;
    try {
      const r = await guardRun(`${c.req.method} ${c.req.path}`, () => next());
      if (!r.ok) c.res = problem(c, { reason: "run-fault", detail: r.error.detail });
    } finally {
      active -= 1;
    }
  });

  app.post("/v1/runs", limitBody, guarded, async (c) => {
    const req = await readRunRequest(c, RunJobRequestSchema);
    if (!req.ok) return req.response;
    const job: RunJobRequest = req.job;
    const submission = req.submission;
    // The runner never trusts its caller: bytes other than those recorded at upload never run.
    const sha256 = computeSha256(submission);
    if (job.submissionSha256 !== undefined && job.submissionSha256 !== sha256)
      return problem(c, {
        reason: "artifact-integrity",
        expected: job.submissionSha256,
        actual: sha256,
      });
    const r = await runJob({
      runId: job.runId ?? randomUUID(),
      challenge: req.challenge,
      submission,
      submissionSha256: sha256,
      requestedLimits: job.limits ?? {},
      environment,
    });
    if (!r.ok) return problem(c, { reason: "job", error: r.error });
    if (r.value.infrastructure?.reason === "sandbox-unavailable")
      return problem(c, { reason: "sandbox-unavailable", report: r.value });
    return c.json(r.value);
  });

  // A suite written elsewhere (the score role's model-backed generator), checked against the
  // reference solution before it counts (generated-run.ts).
  app.post("/v1/runs/generated", limitBody, guarded, async (c) => {
    const req = await readRunRequest(c, RunGeneratedRequestSchema);
    if (!req.ok) return req.response;
    const r = await runGeneratedSuite(environment, req);
    if (!r.ok) return problem(c, r.error);
    return c.json(r.value);
  });

  app.post("/v1/challenges/qa", limitBody, guarded, async (c) => {
    const parts = await readParts(c, ["bundle"]);
    if (!parts.ok) return problem(c, parts.error);
    const challenge = await prepareChallenge(parts.files.bundle!, prepareOptions);
    if (!challenge.ok) return problem(c, { reason: "bundle", error: challenge.error });
    const qa = await runChallengeQa(environment, challenge.value, config.QA_REPEATS);
    if (!qa.ok) return problem(c, { reason: "job", error: qa.error });
    return c.json(qa.value);
  });

  app.notFound((c) =>
    c.body(
      JSON.stringify({
        type: "https://bouts.dev/problems/not-found",
        title: "Not found",
        status: 404,
        detail: `${c.req.method} ${c.req.path}`,
      }),
      404,
      { "content-type": "application/problem+json" },
    ),
  );
  app.onError((e, c) => {
    console.error("runner: unexpected error", e);
    return c.body(
      JSON.stringify({
        type: "https://bouts.dev/problems/internal",
        title: "Internal error",
        status: 500,
        detail: "the runner failed; see its logs",
      }),
      500,
      { "content-type": "application/problem+json" },
    );
  });
  return app;
}
