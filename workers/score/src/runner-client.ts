/**
 * @module score/runner-client
 * Sends one submission and its challenge bundle to the runner (`POST /v1/runs`, see
 * docs/runner.md) and reads the RunReport. Transport, first that exists: the RUNNER_HTTP
 * service binding (tests: the real runner behind a Node-side binding), RUNNER_URL (local
 * dev: a plain runner process), the RUNNER Container (production, internet disabled).
 * Invariant: only a report that passes the contract is returned; a refused archive is the
 * agent's failure, anything else is ours and retryable.
 */
import { getContainer } from "@cloudflare/containers";
import {
  GeneratedRunResultSchema,
  RunReportSchema,
  type GeneratedRunResult,
  type GeneratedSuite,
  type RunReport,
} from "@bouts/contracts";
import type { Result } from "@bouts/scoring";

/** Why no report came back. */
export type RunnerError =
  | { reason: "runner-unavailable"; retryable: true; detail: string }
  | {
      reason: "submission-refused";
      retryable: false;
      /** `artifact-integrity` when the runner got other bytes than the recorded sha256. */
      code: "archive-refused" | "artifact-integrity";
      detail: string;
    };

/** Bindings the client may use; RUNNER_HTTP exists only in tests. */
export type RunnerEnv = Pick<Env, "RUNNER_URL"> & { RUNNER?: Env["RUNNER"]; RUNNER_HTTP?: Fetcher };

export interface RunRequest {
  runId: string;
  submission: Uint8Array;
  /** The sha256 recorded at upload; the runner refuses other bytes (it never trusts us). */
  submissionSha256?: string;
  bundle: Uint8Array;
}

async function send(
  env: RunnerEnv,
  runId: string,
  body: FormData,
  route = "/v1/runs",
): Promise<Response> {
  const url = `${env.RUNNER_URL || "http://runner"}${route}`;
  if (env.RUNNER_HTTP) return env.RUNNER_HTTP.fetch(new Request(url, { method: "POST", body }));
  if (env.RUNNER_URL) return fetch(url, { method: "POST", body });
  if (env.RUNNER)
    return getContainer(env.RUNNER, `run-${runId}`).fetch(
      new Request(url, { method: "POST", body }),
    );
  throw new Error("no runner is configured (RUNNER_HTTP, RUNNER_URL or the RUNNER container)");
}

/** Runs a submission in the sandboxed runner. */
export async function requestRun(
  env: RunnerEnv,
  req: RunRequest,
): Promise<Result<RunReport, RunnerError>> {
  const job = {
    runId: req.runId,
    ...(req.submissionSha256 ? { submissionSha256: req.submissionSha256 } : {}),
  };
  return exchange(env, req, "/v1/runs", job, RunReportSchema);
}

/** Runs a generated suite: against the reference first, then the survivors against the submission. */
export async function requestGeneratedRun(
  env: RunnerEnv,
  req: RunRequest & { suite: GeneratedSuite },
): Promise<Result<GeneratedRunResult, RunnerError>> {
  return exchange(
    env,
    req,
    "/v1/runs/generated",
    { runId: req.runId, suite: req.suite },
    GeneratedRunResultSchema,
  );
}

async function exchange<T>(
  env: RunnerEnv,
  req: RunRequest,
  route: string,
  job: unknown,
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } };
  },
): Promise<Result<T, RunnerError>> {
  const form = new FormData();
  form.set("job", new Blob([JSON.stringify(job)], { type: "application/json" }));
  form.set("submission", new Blob([req.submission]), "submission");
  form.set("bundle", new Blob([req.bundle]), "bundle.tar.gz");
  let res: Response;
  try {
    res = await send(env, req.runId, form, route);
  } catch (e) {
    return {
      ok: false,
      error: { reason: "runner-unavailable", retryable: true, detail: String(e) },
    };
  }
  const text = await res.text();
  if (res.status === 422 || res.status === 413) {
    let detail = text.slice(0, 500);
    let type = "";
    try {
      const problem = JSON.parse(text) as { detail?: string; type?: string };
      detail = problem.detail ?? detail;
      type = problem.type ?? "";
    } catch {
      // keep the raw text
    }
    const code = type.endsWith("/artifact-integrity") ? "artifact-integrity" : "archive-refused";
    return { ok: false, error: { reason: "submission-refused", retryable: false, code, detail } };
  }
  if (!res.ok)
    return {
      ok: false,
      error: {
        reason: "runner-unavailable",
        retryable: true,
        detail: `runner answered ${res.status}: ${text.slice(0, 300)}`,
      },
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      error: {
        reason: "runner-unavailable",
        retryable: true,
        detail: "the runner's answer is not JSON",
      },
    };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      error: {
        reason: "runner-unavailable",
        retryable: true,
        detail: `the runner's report breaks the contract: ${parsed.error.issues[0]?.message ?? ""}`,
      },
    };
  return { ok: true, value: parsed.data };
}
