import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunReportSchema } from "@bouts/contracts";
import type { Hono } from "hono";
import { createRunnerApp } from "../src/app.ts";
import { packChallengeDir, packDir } from "../src/challenge/bundle.ts";
import { createTestEnvironment, FIXTURES, form } from "./helpers.ts";

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
