import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunnerProblemSchema, RunReportSchema, type RunReport } from "@bouts/contracts";
import type { Hono } from "hono";
import { createRunnerApp, toProblem } from "../src/app.ts";
import { packChallengeDir, packDir } from "../src/challenge/bundle.ts";
import { CHALLENGES, createTestEnvironment, FIXTURES, form } from "./helpers.ts";

let app: Hono;
let bundle: Buffer;
let good: Buffer;

beforeAll(async () => {
  const environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
  app = createRunnerApp(environment, null);
  bundle = await packChallengeDir(path.join(FIXTURES, "exploit-node"));
  good = await packDir(path.join(FIXTURES, "exploit-node", "reference"));
}, 60_000);

describe("runner service", () => {
  it("answers health", async () => {
    const res = await app.request("/healthz");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("ok");
  });

  it("runs a submission and answers 200 with a valid RunReport", async () => {
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({ job: '{"runId":"svc-1"}', submission: good, bundle }),
    });
    expect(res.status).toBe(200);
    const report = RunReportSchema.parse(await res.json());
    expect(report.runId).toBe("svc-1");
    expect(report.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
  }, 60_000);

  it("answers a failing submission with 200 and a verdict", async () => {
    const bad = await packDir(path.join(import.meta.dirname, "exploits", "fake-pass-lines"));
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({ submission: bad, bundle }),
    });
    expect(res.status).toBe(200);
    const report = RunReportSchema.parse(await res.json());
    expect(report.staticTests.every((t) => t.status === "failed")).toBe(true);
  }, 60_000);

  it("answers a missing part with 400 problem+json", async () => {
    const res = await app.request("/v1/runs", { method: "POST", body: form({ bundle }) });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answers an invalid job with 400", async () => {
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({ job: '{"limits":{"memoryMb":"lots"}}', submission: good, bundle }),
    });
    expect(res.status).toBe(400);
    const problem = RunnerProblemSchema.parse(await res.json());
    expect(problem.type).toBe("urn:bouts:problem:invalid-job");
    expect(problem.detail).toMatch(/^limits\.memoryMb: /);
    expect(problem.errors?.map((e) => e.path)).toEqual(["limits.memoryMb"]);
  });

  it("answers a job part that is not JSON with 400 naming the job", async () => {
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({ job: "{", submission: good, bundle }),
    });
    expect(res.status).toBe(400);
    const problem = RunnerProblemSchema.parse(await res.json());
    expect(problem.detail).toBe("job is not JSON");
    expect(problem.errors).toEqual([{ path: "job", message: "job is not JSON" }]);
  });

  it("answers an unknown route with the edge kit's 404, echoing nothing of the request", async () => {
    const res = await app.request("/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toEqual({
      type: "urn:bouts:problem:not-found",
      title: "Not found",
      status: 404,
      detail: "No such route.",
    });
  });

  it("answers another method on a route with 405 and Allow", async () => {
    const res = await app.request("/v1/runs");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(RunnerProblemSchema.parse(await res.json()).type).toBe(
      "urn:bouts:problem:method-not-allowed",
    );
  });

  it("maps a sandbox that could not start to 503 carrying the run's report", () => {
    const report = {
      infrastructure: { reason: "sandbox-unavailable", message: "no bwrap" },
    } as unknown as RunReport;
    const problem = toProblem({ reason: "sandbox-unavailable", report });
    expect(problem).toMatchObject({
      type: "urn:bouts:problem:sandbox-unavailable",
      status: 503,
      detail: "no bwrap",
      report,
    });
  });

  it("refuses a request that raises a limit with 422", async () => {
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({ job: '{"limits":{"testTimeoutMs":60000}}', submission: good, bundle }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { type: string }).type).toContain("limit-above-ceiling");
  });

  it("refuses an unsafe archive with 422 naming the entry", async () => {
    const { buildTarGz } = await import("./archive-builders.ts");
    const evil = buildTarGz([{ name: "../../etc/cron.d/x", data: "boom" }]);
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({ submission: evil, bundle }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toContain("../../etc/cron.d/x");
  });

  it("refuses an invalid bundle with 422", async () => {
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({ submission: good, bundle: good }),
    });
    expect(res.status).toBe(422);
  });
});

describe("challenge QA when the runner's sandbox fails", () => {
  it("answers 503 sandbox-unavailable, not a failed QA report", async () => {
    const environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
    const broken = createRunnerApp(
      { ...environment, config: { ...environment.config, BWRAP_BIN: "/nonexistent/bwrap" } },
      null,
    );
    const res = await broken.request("/v1/challenges/qa", {
      method: "POST",
      body: form({ bundle: await packChallengeDir(path.join(CHALLENGES, "deep-merge")) }),
    });
    expect(res.status).toBe(503);
    const problem = RunnerProblemSchema.parse(await res.json());
    expect(problem.type).toBe("urn:bouts:problem:sandbox-unavailable");
  }, 120_000);
});
