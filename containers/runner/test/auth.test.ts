/**
 * The runner's authentication (docs/runner.md, "Authentication"): with RUNNER_SHARED_SECRET set,
 * an unsigned, wrongly signed, stale, altered or replayed request is 401 problem+json and runs
 * nothing (the work dir is unchanged: no bundle prepared, no run folder); a signed one runs.
 * Off loopback, a runner without a secret does not start.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunnerProblemSchema, RunReportSchema } from "@bouts/contracts";
import { buildSignedRequest } from "@bouts/runner-auth";
import type { Hono } from "hono";
import { createRunnerApp } from "../src/app.ts";
import { packChallengeDir, packDir } from "../src/challenge/bundle.ts";
import { parseRunnerConfig } from "../src/config.ts";
import { createTestEnvironment, FIXTURES, form } from "./helpers.ts";

const SECRET = "test-secret-0123456789abcdef-0123456789";
const ROOT = path.resolve(import.meta.dirname, "../../..");

let app: Hono;
let workDir: string;
let bundle: Buffer;
let good: Buffer;

beforeAll(async () => {
  const environment = await createTestEnvironment({
    RUNNER_SELF_TEST: "off",
    RUNNER_SHARED_SECRET: SECRET,
  });
  workDir = environment.config.WORK_DIR;
  app = createRunnerApp(environment, null);
  bundle = await packChallengeDir(path.join(FIXTURES, "exploit-node"));
  good = await packDir(path.join(FIXTURES, "exploit-node", "reference"));
}, 60_000);

/** Every path under the work dir: what a request that ran something would have changed. */
function listWorkDir(): string[] {
  return (readdirSync(workDir, { recursive: true }) as string[]).sort();
}

function runForm(runId: string): FormData {
  return form({ job: JSON.stringify({ runId }), submission: good, bundle });
}

async function signed(
  runId: string,
  opts: { secret?: string; now?: Date; nonce?: string; route?: string } = {},
): Promise<Request> {
  const r = await buildSignedRequest({
    url: `http://runner${opts.route ?? "/v1/runs"}`,
    method: "POST",
    body: runForm(runId),
    secret: opts.secret ?? SECRET,
    now: opts.now ?? new Date(),
    nonce: opts.nonce ?? crypto.randomUUID(),
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

/** Sends a request that must be refused: 401 problem+json, and the work dir unchanged. */
async function expectRefused(request: Request | Promise<Request>, detail: RegExp) {
  const before = listWorkDir();
  const res = await app.fetch(await request);
  expect(res.status).toBe(401);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.headers.get("www-authenticate")).toMatch(/^Bouts-HMAC-SHA256/);
  const problem = RunnerProblemSchema.parse(await res.json());
  expect(problem.detail).toMatch(detail);
  expect(problem.detail).toMatch(/nothing was run/);
  expect(listWorkDir()).toEqual(before);
  return problem;
}

describe("runner authentication", () => {
  it("keeps /healthz open and says requests are signed", async () => {
    const res = await app.request("/healthz");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { authentication: string }).authentication).toBe("hmac-sha256");
  });

  it("refuses an unsigned request with 401 and runs nothing", async () => {
    const p = await expectRefused(
      new Request("http://runner/v1/runs", { method: "POST", body: runForm("unsigned") }),
      /not signed/,
    );
    expect(p.type).toBe("urn:bouts:problem:unauthenticated");
  });

  it("refuses unsigned requests on every route, QA and generated runs included", async () => {
    for (const route of ["/v1/challenges/qa", "/v1/runs/generated", "/v1/nowhere"])
      await expectRefused(
        new Request(`http://runner${route}`, { method: "POST", body: form({ bundle }) }),
        /not signed/,
      );
  });

  it("refuses a request signed with another secret", async () => {
    await expectRefused(signed("wrong", { secret: "x".repeat(40) }), /signature does not match/);
  });

  it("refuses a stale timestamp, saying it is the clock", async () => {
    const p = await expectRefused(
      signed("stale", { now: new Date(Date.now() - 10 * 60 * 1000) }),
      /from the runner's clock, outside the ±300 s window/,
    );
    expect(p.type).toBe("urn:bouts:problem:clock-skew");
  });

  it("refuses a body swapped after signing", async () => {
    const original = await signed("swap");
    const evil = await packDir(path.join(import.meta.dirname, "exploits", "fake-pass-lines"));
    const swapped = new Request(original.url, {
      method: "POST",
      body: form({ job: '{"runId":"swap"}', submission: evil, bundle }),
      headers: {
        "x-bouts-timestamp": original.headers.get("x-bouts-timestamp")!,
        "x-bouts-nonce": original.headers.get("x-bouts-nonce")!,
        "x-bouts-signature": original.headers.get("x-bouts-signature")!,
      },
    });
    await expectRefused(swapped, /altered after signing/);
  });

  it("refuses a signature made for another route", async () => {
    const forQa = await signed("route", { route: "/v1/challenges/qa" });
    const moved = new Request("http://runner/v1/runs", {
      method: "POST",
      headers: forQa.headers,
      body: await forQa.arrayBuffer(),
    });
    await expectRefused(moved, /signature does not match/);
  });

  it("runs a signed request, and refuses the same request replayed", async () => {
    const request = await signed("signed-1");
    const replay = request.clone();
    const res = await app.fetch(request);
    expect(res.status).toBe(200);
    const report = RunReportSchema.parse(await res.json());
    expect(report.runId).toBe("signed-1");
    expect(report.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
    // The probe sees work: the bundle is now prepared in the work dir.
    expect(listWorkDir().length).toBeGreaterThan(0);
    await expectRefused(replay, /already used: a replay is refused/);
  }, 60_000);
});

describe("fail closed off loopback", () => {
  it("refuses a config that listens beyond loopback without a secret", () => {
    const r = parseRunnerConfig({ RUNNER_HOST: "0.0.0.0" });
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error.issues.join("\n")).toMatch(
      /RUNNER_SHARED_SECRET: required when RUNNER_HOST \(0\.0\.0\.0\) is not a loopback address/,
    );
  });

  it("accepts loopback without a secret, and any address with one", () => {
    for (const host of ["127.0.0.1", "::1", "localhost", "[::1]"])
      expect(parseRunnerConfig({ RUNNER_HOST: host }).ok).toBe(true);
    expect(parseRunnerConfig({ RUNNER_HOST: "0.0.0.0", RUNNER_SHARED_SECRET: SECRET }).ok).toBe(
      true,
    );
  });

  it("refuses a secret shorter than 32 characters", () => {
    const r = parseRunnerConfig({ RUNNER_SHARED_SECRET: "short" });
    expect(r.ok ? "" : r.error.issues.join("\n")).toMatch(
      /RUNNER_SHARED_SECRET: must be at least 32/,
    );
  });

  it("the service exits 2 before its self-test when listening beyond loopback without a secret", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "containers/runner/src/server.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, RUNNER_HOST: "0.0.0.0", RUNNER_PORT: "1" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/RUNNER_SHARED_SECRET: required when RUNNER_HOST/);
  }, 40_000);
});
