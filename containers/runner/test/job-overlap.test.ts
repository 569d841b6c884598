/**
 * The scan and the tests of a run overlap in time (job.ts). The scanner is replaced here by one
 * that answers only once a test has finished (or gives up after a while), so a run that scanned
 * first and tested afterwards would report that the scan saw no test finish.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { ScanReport } from "@bouts/contracts";
import { computeSha256, packDir, type PreparedChallenge } from "../src/challenge/bundle.ts";
import type { JobContext, RunnerEnvironment } from "../src/job.ts";
import type * as ScanModule from "../src/scan/index.ts";
import type { ScanOptions } from "../src/scan/index.ts";
import { createTestEnvironment, FIXTURES, prepareDir } from "./helpers.ts";

const probe = vi.hoisted(() => {
  const state = {
    /** Resolves when the first test of the current run has finished. */
    testFinished: Promise.resolve(),
    markTestFinished: () => {},
    /** What the fake scanner saw, per call. */
    scans: [] as {
      dir: string;
      timeoutMs: number | undefined;
      sawTestFinish: boolean;
      aborted: boolean;
      endedAt: number;
    }[],
    reset() {
      state.testFinished = new Promise<void>((resolve) => {
        state.markTestFinished = resolve;
      });
      state.scans = [];
    },
  };
  return state;
});

vi.mock("../src/scan/index.ts", async (importOriginal) => {
  const real = await importOriginal<typeof ScanModule>();
  return {
    ...real,
    scanSubmission: async (dir: string, options: ScanOptions): Promise<ScanReport> => {
      const gaveUp = new Promise<"gave-up">((r) => setTimeout(() => r("gave-up"), 8_000));
      const aborted = new Promise<"aborted">((r) =>
        options.signal?.addEventListener("abort", () => r("aborted"), { once: true }),
      );
      const why = await Promise.race([
        probe.testFinished.then(() => "test" as const),
        gaveUp,
        aborted,
      ]);
      probe.scans.push({
        dir,
        timeoutMs: options.timeoutMs,
        sawTestFinish: why === "test",
        aborted: why === "aborted",
        endedAt: Date.now(),
      });
      return {
        status: "complete",
        findings: [],
        tools: [{ tool: "fake", version: null, status: "ok", detail: "" }],
        skipped: [],
        notMeasured: [],
        durationMs: 1,
        deadline: { ms: options.timeoutMs ?? 0, exhausted: false },
      };
    },
  };
});

// The runner's files share one module cache per worker (vitest.config.ts, `isolate: false`): the
// job module may already be loaded with the real scanner, so it is loaded afresh, after the mock.
vi.resetModules();
const { RunJob, runJob } = await import("../src/job.ts");

describe("scan and tests at once", () => {
  let environment: RunnerEnvironment;
  let challenge: PreparedChallenge;
  let submission: Buffer;
  beforeAll(async () => {
    environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
    challenge = await prepareDir(environment, path.join(FIXTURES, "exploit-node"));
    submission = await packDir(path.join(FIXTURES, "exploit-node", "reference"));
  }, 60_000);
  const ctx = (): JobContext => ({
    runId: `overlap-${Math.random().toString(16).slice(2)}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
    onTest: () => probe.markTestFinished(),
  });

  it("does not scan a run whose report is read only for test verdicts (challenge QA)", async () => {
    probe.reset();
    const r = await runJob({ ...ctx(), scan: false });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(probe.scans).toHaveLength(0);
    expect(r.value.scan.status).toBe("unavailable");
    expect(r.value.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
  }, 60_000);

  it("runs the tests while the scan is still going, with the scan's own deadline", async () => {
    probe.reset();
    const job = new RunJob(ctx());
    try {
      expect((await job.prime()).ok).toBe(true);
      const r = await job.execute();
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      expect(r.value.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
      expect(probe.scans).toHaveLength(1);
      // The fake scan answered only because a test finished while it was running.
      expect(probe.scans[0]).toMatchObject({ sawTestFinish: true, aborted: false });
      // It scanned the submission's own copy, with the deadline the report states.
      expect(path.basename(probe.scans[0]!.dir)).toBe("submission");
      expect(probe.scans[0]!.timeoutMs).toBe(r.value.budget!.scanDeadlineMs);
      // Its report is the run's, unchanged.
      expect(r.value.scan.tools.map((t) => t.tool)).toEqual(["fake"]);
      // Overlapping phases: the run took less than the scan and the tests one after the other.
      const { scanMs, testsMs } = r.value.timings;
      expect(r.value.budget!.spentMs).toBeLessThan(scanMs + testsMs);
    } finally {
      await job.cleanup();
    }
  }, 60_000);

  it("stops the scan and waits for it before a test phase that threw gives up", async () => {
    probe.reset();
    const c = {
      ...ctx(),
      onTest: () => {
        throw new Error("boom");
      },
    };
    await expect(runJob(c)).rejects.toThrow("boom");
    // The scan had ended (cancelled) before the run's folder was removed.
    expect(probe.scans).toHaveLength(1);
    expect(probe.scans[0]!.aborted).toBe(true);
    expect(existsSync(path.join(environment.config.WORK_DIR, "runs", c.runId))).toBe(false);
  }, 60_000);
});
