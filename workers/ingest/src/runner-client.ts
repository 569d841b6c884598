/**
 * @module ingest/runner-client
 * The ingest role's client of the runner's challenge QA (`POST /v1/challenges/qa`, multipart
 * with a `bundle` part; see docs/runner.md), whose answer is parsed with the contract's
 * `QaReportSchema`. Transport: RUNNER_URL when set (wrangler dev with a local runner process,
 * and tests), else the RUNNER Container binding (production). Invariant: a runner that is
 * missing, down or answers garbage is "unavailable" (503), never a passed QA; a bundle the
 * runner refuses (4xx) is a failed QA carrying the runner's detail, except 401: a signature the
 * runner refused (RUNNER_SHARED_SECRET differs) is ours, so "unavailable". With the secret set,
 * every request is signed (`@bouts/runner-auth`).
 */
import { getContainer } from "@cloudflare/containers";
import { QaReportSchema, type QaReport } from "@bouts/contracts";
import type { Err, Result } from "@bouts/result";
import { buildSignedRequest, describeRunnerAuthError } from "@bouts/runner-auth";
import { z } from "zod";
import type { IngestConfig } from "./config.ts";

/** A problem document from the runner. */
const RunnerProblemSchema = z.looseObject({ detail: z.string() });

/** The QA verdict and the full report to store with the challenge. */
export type QaResult = {
  passed: boolean;
  problems: string[];
  /** The report, or the runner's problem document when it refused the bundle. */
  report: QaReport | z.infer<typeof RunnerProblemSchema> | null;
};

/** Why QA could not be run at all. */
export type QaError = { reason: "runner-unavailable"; detail: string };

/** Sends a bundle to the runner's challenge QA and reads its verdict. */
export async function runChallengeQa(
  env: Pick<Env, "RUNNER"> & { RUNNER_HTTP?: Fetcher },
  config: Pick<IngestConfig, "runnerUrl" | "runnerSharedSecret">,
  bundle: Uint8Array<ArrayBuffer>,
): Promise<Result<QaResult, QaError>> {
  const { runnerUrl, runnerSharedSecret } = config;
  const form = new FormData();
  form.set("bundle", new File([bundle], "bundle.tar.gz", { type: "application/gzip" }));
  const url = `${runnerUrl || "http://runner"}/v1/challenges/qa`;
  let request = new Request(url, { method: "POST", body: form });
  if (runnerSharedSecret) {
    const signed = await buildSignedRequest({
      url,
      method: "POST",
      body: form,
      secret: runnerSharedSecret,
      now: new Date(),
      nonce: crypto.randomUUID(),
    });
    if (!signed.ok) return unavailable(describeRunnerAuthError(signed.error));
    request = signed.value;
  }
  let response: Response;
  try {
    // RUNNER_HTTP exists only in tests: the real runner behind a Node-side service binding.
    if (env.RUNNER_HTTP) response = await env.RUNNER_HTTP.fetch(request);
    else if (runnerUrl) response = await fetch(request);
    else if (env.RUNNER) response = await getContainer(env.RUNNER, "challenge-qa").fetch(request);
    else return unavailable("no RUNNER_URL and no RUNNER container are configured");
  } catch (err) {
    return unavailable(`the runner could not be reached: ${String(err)}`);
  }
  if (response.status >= 500) return unavailable(`the runner answered ${response.status}`);
  if (response.status === 401)
    return unavailable(
      `the runner refused our signature (RUNNER_SHARED_SECRET must be the same on the Worker and the runner): ${(await response.text()).slice(0, 300)}`,
    );
  if (response.status >= 400) {
    // The runner refused the bundle itself (e.g. a test file the manifest lists is missing).
    const problem = RunnerProblemSchema.safeParse(await response.json().catch(() => null));
    const detail = problem.success ? problem.data.detail : `the runner answered ${response.status}`;
    return { ok: true, value: { passed: false, problems: [detail], report: problem.data ?? null } };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return unavailable("the runner's QA answer is not JSON");
  }
  const parsed = QaReportSchema.safeParse(body);
  if (!parsed.success) return unavailable("the runner's QA answer is not a QA report");
  return {
    ok: true,
    value: {
      passed: parsed.data.publishable,
      problems: parsed.data.problems,
      report: parsed.data,
    },
  };
}

function unavailable(detail: string): Err<QaError> {
  return { ok: false, error: { reason: "runner-unavailable", detail } };
}
