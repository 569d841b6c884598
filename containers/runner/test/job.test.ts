import { existsSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ChallengeLimitsSchema } from "@bouts/contracts";
import { computeSha256, packDir, type PreparedChallenge } from "../src/challenge/bundle.ts";
import { RunJob, resolveRunLimits, runJob, type RunnerEnvironment } from "../src/job.ts";
import { buildTestConfig, createTestEnvironment, FIXTURES, prepareDir } from "./helpers.ts";

describe("limits", () => {
  const config = buildTestConfig({ RUNNER_MEMORY_MB: "512", RUNNER_TEST_TIMEOUT_MS: "8000" });
  const challenge = ChallengeLimitsSchema.parse({ memoryMb: 1024, testTimeoutMs: 5000 });

  it("takes the lower of config and challenge", () => {
    const r = resolveRunLimits(config, challenge, {});
    expect(r.ok && r.value.memoryMb).toBe(512);
    expect(r.ok && r.value.testTimeoutMs).toBe(5000);
  });
  it("lets a request lower a limit", () => {
    const r = resolveRunLimits(config, challenge, { memoryMb: 128 });
    expect(r.ok && r.value.memoryMb).toBe(128);
  });
  it("caps the run budget at the platform ceiling, lowered by the challenge's own budget", () => {
    expect(resolveRunLimits(config, challenge, {}).ok && config.RUN_WALL_MS).toBe(300_000);
    const own = ChallengeLimitsSchema.parse({ runWallMs: 40_000 });
    const r = resolveRunLimits(config, own, {});
    expect(r.ok && r.value.runWallMs).toBe(40_000);
    const above = ChallengeLimitsSchema.parse({ runWallMs: 3_000_000 });
    const capped = resolveRunLimits(config, above, {});
    expect(capped.ok && capped.value.runWallMs).toBe(config.RUN_WALL_MS);
  });
  it("refuses a request for a budget above the challenge's", () => {
    const own = ChallengeLimitsSchema.parse({ runWallMs: 40_000 });
    const r = resolveRunLimits(config, own, { runWallMs: 50_000 });
    expect(!r.ok && r.error).toMatchObject({ key: "runWallMs", ceiling: 40_000 });
  });
  it("refuses a request that raises a limit above the ceiling", () => {
    const r = resolveRunLimits(config, challenge, { testTimeoutMs: 6000 });
    expect(r).toEqual({
      ok: false,
      error: {
        reason: "limit-above-ceiling",
        key: "testTimeoutMs",
        requested: 6000,
        ceiling: 5000,
      },
    });
  });
});

describe("job state machine", () => {
  let environment: RunnerEnvironment;
  let challenge: PreparedChallenge;
  let submission: Buffer;
  beforeAll(async () => {
    environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
    challenge = await prepareDir(environment, path.join(FIXTURES, "exploit-node"));
    submission = await packDir(path.join(FIXTURES, "exploit-node", "reference"));
  }, 60_000);
  const ctx = () => ({
    runId: `job-${Math.random().toString(16).slice(2)}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
  });

  it("refuses to execute unless primed", async () => {
    const job = new RunJob(ctx());
    expect(job.state).toBe("ready");
    const r = await job.execute();
    expect(r).toEqual({
      ok: false,
      error: { reason: "invalid-state", state: "ready", action: "execute" },
    });
    await job.cleanup();
  });

  it("moves ready → primed → executed and refuses a second prime or execute", async () => {
    const job = new RunJob(ctx());
    try {
      expect((await job.prime()).ok).toBe(true);
      expect(job.state).toBe("primed");
      expect((await job.prime()).ok).toBe(false);
      const r = await job.execute();
      expect(job.state).toBe("executed");
      expect(r.ok && r.value.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
      expect((await job.execute()).ok).toBe(false);
      // Two tests of 10 s: scan deadline 30 s + start-up 10 s + 2 × 2.5 s; the scan gets half.
      expect(r.ok && r.value.budget).toMatchObject({
        limitMs: 45_000,
        source: "derived",
        scanDeadlineMs: 22_500,
        exhausted: false,
        failFast: null,
      });
      expect(r.ok && r.value.limits.runWallMs).toBe(45_000);
    } finally {
      await job.cleanup();
    }
    expect(job.state).toBe("cleaned");
  }, 60_000);

  it("cleans up the run folder even when priming fails", async () => {
    const c = { ...ctx(), submission: Buffer.from("not an archive") };
    const r = await runJob(c);
    expect(!r.ok && r.error.reason).toBe("submission-rejected");
    expect(existsSync(path.join(environment.config.WORK_DIR, "runs", c.runId))).toBe(false);
  });

  it("reports a missing deliverable as absent", async () => {
    const r = await runJob(ctx());
    expect(r.ok && r.value.deliverables).toEqual([
      { name: "NOTES.md", required: true, present: false, bytes: 0, path: null, content: null },
    ]);
  }, 60_000);

  it("hands the judges the submission's sources, never its tests folder", async () => {
    const r = await runJob(ctx());
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const paths = r.value.sources.map((s) => s.path);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.some((p) => p.startsWith("tests/"))).toBe(false);
    expect(r.value.sources.every((s) => s.content.length > 0 && !s.truncated)).toBe(true);
  }, 60_000);

  it("fails closed: a sandbox that cannot start is an infrastructure error and runs nothing", async () => {
    const broken = {
      ...environment,
      config: { ...environment.config, BWRAP_BIN: "/nonexistent/bwrap" },
    };
    const r = await runJob({ ...ctx(), environment: broken });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.infrastructure?.reason).toBe("sandbox-unavailable");
    expect(r.value.staticTests.every((t) => t.status === "not-run")).toBe(true);
  }, 60_000);
});
