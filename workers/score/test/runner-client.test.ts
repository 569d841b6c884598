/**
 * How the score role reads the runner's refusals (docs/runner.md, "POST /v1/runs"): the
 * problem `type` is the platform's `urn:bouts:problem:<code>`; only `artifact-integrity` is an
 * integrity failure and `dependencies` the submission's own dependencies refused, any other 422
 * or 413 a refused archive, each with the runner's `detail`.
 */
import { buildProblem } from "@bouts/contracts";
import { describe, expect, it } from "vitest";
import { computeUnreachableRetryDelaySeconds } from "../src/pipeline.ts";
import { probeRunner, requestRun, type RunnerEnv } from "../src/runner-client.ts";

function answering(response: () => Response): RunnerEnv {
  const fetch = () => Promise.resolve(response());
  return { RUNNER_URL: "", RUNNER_HTTP: { fetch } as unknown as Fetcher };
}

const run = { runId: "refused-1", submission: new Uint8Array([1]), bundle: new Uint8Array([2]) };

describe("the runner's refusals", () => {
  it("reads an artifact-integrity problem as an integrity refusal", async () => {
    const problem = buildProblem(
      422,
      "artifact-integrity",
      "Archive is not the one uploaded",
      "the submission's sha256 is aa, not the bb recorded at upload; it was not run",
    );
    const r = await requestRun(
      answering(() => Response.json(problem, { status: 422 })),
      run,
    );
    expect(r).toEqual({
      ok: false,
      error: {
        reason: "submission-refused",
        retryable: false,
        code: "artifact-integrity",
        detail: problem.detail,
      },
    });
  });

  it("reads a dependencies problem as the submission's dependencies refused", async () => {
    const problem = buildProblem(
      422,
      "dependencies",
      "Submission dependencies refused",
      "expresss@4.0.0: one edit from express (typosquat)",
      { rule: "lockfile-refused" },
    );
    const r = await requestRun(
      answering(() => Response.json(problem, { status: 422 })),
      run,
    );
    expect(!r.ok && r.error).toMatchObject({ code: "dependencies", detail: problem.detail });
  });

  it("reads any other refusal as a refused archive, with the runner's detail", async () => {
    const problem = buildProblem(
      422,
      "submission-rejected",
      "Submission archive refused",
      'unsafe-path "../x": the path leaves the archive',
      { rule: "unsafe-path", entry: "../x" },
    );
    const r = await requestRun(
      answering(() => Response.json(problem, { status: 422 })),
      run,
    );
    expect(!r.ok && r.error).toMatchObject({ code: "archive-refused", detail: problem.detail });
  });
});

describe("a runner that cannot be reached", () => {
  it("is marked unreachable when the connection fails, so it is retried within seconds", async () => {
    const env: RunnerEnv = {
      RUNNER_URL: "",
      RUNNER_HTTP: {
        fetch: () => Promise.reject(new Error("Network connection lost.")),
      } as unknown as Fetcher,
    };
    const r = await requestRun(env, run);
    expect(r).toMatchObject({
      ok: false,
      error: { reason: "runner-unavailable", retryable: true, unreachable: true },
    });
  });

  it("is not marked unreachable when it answers badly", async () => {
    const r = await requestRun(
      answering(() => new Response("busy", { status: 503 })),
      run,
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && "unreachable" in r.error).toBe(false);
  });

  it("is retried after 5 s, then after half of its waiting so far, capped at 30 min", () => {
    expect(computeUnreachableRetryDelaySeconds(0)).toBe(5);
    expect(computeUnreachableRetryDelaySeconds(9_000)).toBe(5);
    expect(computeUnreachableRetryDelaySeconds(60_000)).toBe(30);
    expect(computeUnreachableRetryDelaySeconds(24 * 3_600_000)).toBe(30 * 60);
  });
});

describe("the platform's probe of the runner (/healthz)", () => {
  it("reports the runner's counts when it answers", async () => {
    const h = await probeRunner(
      answering(() =>
        Response.json({ status: "ok", activeRuns: 1, capacity: 2, slotsHeld: 1, runtimes: {} }),
      ),
    );
    expect(h).toEqual({
      state: "ok",
      via: "RUNNER_HTTP",
      activeRuns: 1,
      capacity: 2,
      slotsHeld: 1,
    });
  });

  it("reports a runner that is down as unreachable, with the error, without throwing", async () => {
    const env: RunnerEnv = {
      RUNNER_URL: "",
      RUNNER_HTTP: {
        fetch: () => Promise.reject(new Error("connect ECONNREFUSED")),
      } as unknown as Fetcher,
    };
    expect(await probeRunner(env)).toEqual({
      state: "unreachable",
      via: "RUNNER_HTTP",
      error: "Error: connect ECONNREFUSED",
    });
  });
});
