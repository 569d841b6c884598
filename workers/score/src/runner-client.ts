/**
 * @module score/runner-client
 * Sends one submission and its challenge bundle to the runner (`POST /v1/runs`, docs/runner.md)
 * and reads the RunReport. Invariants: only a report that passes the contract is returned; a
 * refused archive is the agent's failure, anything else is ours and retryable; no call outlives
 * its deadline (RUNNER_TIMEOUT_MS and the caller's signal), so a hung runner costs one attempt,
 * never the whole lease. With RUNNER_SHARED_SECRET set every request is signed
 * (`@bouts/runner-auth`), whichever transport carries it.
 */
import { getContainer } from "@cloudflare/containers";
import {
  buildProblemType,
  GeneratedRunResultSchema,
  RunReportSchema,
  type GeneratedRunResult,
  type GeneratedSuite,
  type RunnerProblem,
  type RunReport,
} from "@bouts/contracts";
import type { Result } from "@bouts/result";
import { buildSignedRequest, describeRunnerAuthError } from "@bouts/runner-auth";
import { readScoreConfig } from "./config.ts";

/** Why no report came back. */
export type RunnerError =
  | {
      reason: "runner-unavailable";
      retryable: true;
      detail: string;
      /**
       * True when no connection could be made or it broke before an answer (the runner is down
       * or was restarted mid-run), not when it answered badly or too late: such a failure is
       * retried within seconds (pipeline.ts, `computeUnreachableRetryDelaySeconds`).
       */
      unreachable?: boolean;
    }
  | {
      reason: "submission-refused";
      retryable: false;
      /**
       * `artifact-integrity` when the runner got other bytes than the recorded sha256,
       * `dependencies` when the submission's own locked dependencies were refused or did not
       * install (nothing of it ran; it costs no iteration).
       */
      code: "archive-refused" | "artifact-integrity" | "dependencies";
      detail: string;
    };

/** Bindings the client may use; RUNNER_HTTP exists only in tests. */
export type RunnerEnv = Pick<Env, "RUNNER_URL"> & {
  RUNNER?: Env["RUNNER"];
  RUNNER_HTTP?: Fetcher;
  /** Deadline of one runner call in ms (default RUNNER_TIMEOUT_MS_DEFAULT). */
  RUNNER_TIMEOUT_MS?: string;
  /** The HMAC key shared with the runner (a Worker secret); unset: requests go unsigned. */
  RUNNER_SHARED_SECRET?: string;
};

export { RUNNER_TIMEOUT_MS_DEFAULT } from "./config.ts";

export interface RunRequest {
  runId: string;
  /** Aborts the call (the attempt's own deadline); the runner's deadline applies as well. */
  signal?: AbortSignal;
  submission: Uint8Array;
  /** The sha256 recorded at upload; the runner refuses other bytes (it never trusts us). */
  submissionSha256?: string;
  bundle: Uint8Array;
}

/** A run of the live pipeline: with the platform's draw key for the bundle (generation.ts). */
export interface ScoredRunRequest extends RunRequest {
  /** `deriveBundleDrawKey(GENERATION_SECRET, bundle sha256)`: keys the generated tests' draw. */
  drawKey?: string;
}

/**
 * The transport, first that exists: the RUNNER_HTTP service binding (tests: the real runner behind
 * a Node-side binding), RUNNER_URL (local dev: a plain runner process), the RUNNER Container
 * (production, internet disabled).
 */
async function send(
  env: RunnerEnv,
  runId: string,
  body: FormData,
  route: string,
  signal: AbortSignal,
): Promise<Response> {
  const runner = readScoreConfig(env).runner;
  const url = `${runner.url || "http://runner"}${route}`;
  const request = await buildRunnerRequest(runner.sharedSecret, url, body, signal);
  if (env.RUNNER_HTTP) return env.RUNNER_HTTP.fetch(request);
  if (runner.url) return fetch(request);
  if (env.RUNNER) return getContainer(env.RUNNER, `run-${runId}`).fetch(request);
  throw new Error("no runner is configured (RUNNER_HTTP, RUNNER_URL or the RUNNER container)");
}

/** The POST to send: signed with RUNNER_SHARED_SECRET when it is set (the multipart body is then
 * serialized once, so the bytes signed are the bytes sent). */
async function buildRunnerRequest(
  secret: string | undefined,
  url: string,
  body: FormData,
  signal: AbortSignal,
): Promise<Request> {
  if (!secret) return new Request(url, { method: "POST", body, signal });
  const signed = await buildSignedRequest({
    url,
    method: "POST",
    body,
    signal,
    secret,
    now: new Date(),
    nonce: crypto.randomUUID(),
  });
  if (!signed.ok) throw new Error(describeRunnerAuthError(signed.error));
  return signed.value;
}

/** Settles with `work`, or rejects once `signal` aborts, whether or not the transport listens. */
function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The runner call's signal: its own deadline, and the caller's. */
function resolveDeadline(
  env: RunnerEnv,
  signal?: AbortSignal,
): { signal: AbortSignal; ms: number } {
  const ms = readScoreConfig(env).runner.timeoutMs;
  const own = AbortSignal.timeout(ms);
  return { signal: signal ? AbortSignal.any([own, signal]) : own, ms };
}

/** Runs a submission in the sandboxed runner. */
export async function requestRun(
  env: RunnerEnv,
  req: ScoredRunRequest,
): Promise<Result<RunReport, RunnerError>> {
  const job = {
    runId: req.runId,
    ...(req.submissionSha256 ? { submissionSha256: req.submissionSha256 } : {}),
    ...(req.drawKey ? { drawKey: req.drawKey } : {}),
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
  const deadline = resolveDeadline(env, req.signal);
  let res: Response;
  let text: string;
  try {
    res = await raceSignal(send(env, req.runId, form, route, deadline.signal), deadline.signal);
    text = await raceSignal(res.text(), deadline.signal);
  } catch (e) {
    const timedOut = deadline.signal.aborted;
    return {
      ok: false,
      error: {
        reason: "runner-unavailable",
        retryable: true,
        detail: timedOut
          ? `the runner did not answer within ${deadline.ms} ms (or the attempt's deadline)`
          : `the runner could not be reached: ${String(e)}`,
        ...(timedOut ? {} : { unreachable: true }),
      },
    };
  }
  if (res.status === 422 || res.status === 413) {
    let detail = text.slice(0, 500);
    let type = "";
    try {
      const problem = JSON.parse(text) as Partial<RunnerProblem>;
      detail = problem.detail ?? detail;
      type = problem.type ?? "";
    } catch {
      // keep the raw text
    }
    const code =
      type === buildProblemType("artifact-integrity")
        ? "artifact-integrity"
        : type === buildProblemType("dependencies")
          ? "dependencies"
          : "archive-refused";
    return { ok: false, error: { reason: "submission-refused", retryable: false, code, detail } };
  }
  if (!res.ok)
    return {
      ok: false,
      error: {
        reason: "runner-unavailable",
        retryable: true,
        detail:
          res.status === 401
            ? `the runner refused our signature (RUNNER_SHARED_SECRET must be the same on the Worker and the runner): ${text.slice(0, 300)}`
            : `runner answered ${res.status}: ${text.slice(0, 300)}`,
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

/** The runner's state as the platform's `/healthz` shows it (docs/runner.md, "Recovering"). */
export type RunnerHealth =
  | {
      state: "ok";
      via: "RUNNER_URL" | "RUNNER_HTTP";
      activeRuns?: number;
      slotsHeld?: number;
      capacity?: number;
    }
  | { state: "unreachable"; via: "RUNNER_URL" | "RUNNER_HTTP"; error: string }
  /** The Container is started per run; probing it would start one, so it is not probed. */
  | { state: "not-probed"; via: "container" }
  | { state: "not-configured" };

/** How long the health probe waits for the runner's `/healthz`. */
export const RUNNER_PROBE_TIMEOUT_MS = 2_000;

/**
 * Asks the runner's `/healthz` (unsigned, as the runner allows) through the same transport a
 * run takes; never throws: a runner that is down is a state, not an error.
 */
export async function probeRunner(env: RunnerEnv): Promise<RunnerHealth> {
  const runnerUrl = readScoreConfig(env).runner.url;
  const via = env.RUNNER_HTTP ? "RUNNER_HTTP" : runnerUrl ? "RUNNER_URL" : null;
  if (!via)
    return env.RUNNER ? { state: "not-probed", via: "container" } : { state: "not-configured" };
  const url = `${runnerUrl || "http://runner"}/healthz`;
  try {
    const request = new Request(url, { signal: AbortSignal.timeout(RUNNER_PROBE_TIMEOUT_MS) });
    const res = await (env.RUNNER_HTTP ? env.RUNNER_HTTP.fetch(request) : fetch(request));
    const text = await res.text();
    if (!res.ok)
      return { state: "unreachable", via, error: `answered ${res.status}: ${text.slice(0, 200)}` };
    const body = JSON.parse(text) as Record<string, unknown>;
    const count = (k: string) => (typeof body[k] === "number" ? { [k]: body[k] } : {});
    return {
      state: "ok",
      via,
      ...count("activeRuns"),
      ...count("slotsHeld"),
      ...count("capacity"),
    };
  } catch (e) {
    return { state: "unreachable", via, error: String(e) };
  }
}
