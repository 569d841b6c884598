/**
 * The run cache (run/run-cache.ts, `RUNNER_RUN_CACHE_DIR`): the same bytes under the same key
 * run once and every later request gets that report under its own run id, labelled as reused;
 * any other submission, draw key, limit or runner is a run of its own; a corrupt or tampered
 * entry is ignored; a report an outside condition shaped is never kept; the draw key is never
 * written. Runs the exploit-node fixture's reference (two static tests) through the service.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunReportSchema, type RunReport } from "@bouts/contracts";
import type { Hono } from "hono";
import { createRunnerApp } from "../src/app.ts";
import { packChallengeDir, packDir, prepareChallenge } from "../src/challenge/bundle.ts";
import { resolvePrepareOptions } from "../src/challenge/prepare-options.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import {
  buildRunCacheKey,
  readCachedRun,
  refuseToCache,
  runCacheEntryPath,
  storeCachedRun,
  type RunCacheKey,
} from "../src/run/run-cache.ts";
import { createTestEnvironment, FIXTURES, form } from "./helpers.ts";

const DRAW_KEY = "d".repeat(64);
const OTHER_DRAW_KEY = "e".repeat(64);
const REUSED = /^reused from the runner's run cache: .* ran at \d{4}-/;

let environment: RunnerEnvironment;
let app: Hono;
let cacheDir: string;
let bundle: Buffer;
let submission: Buffer;
/** The first run of the reference with DRAW_KEY: the report every reuse must repeat. */
let first: RunReport;

beforeAll(async () => {
  cacheDir = mkdtempSync(path.join(tmpdir(), "bouts-run-cache-"));
  environment = await createTestEnvironment({
    RUNNER_SELF_TEST: "off",
    RUNNER_RUN_CACHE_DIR: cacheDir,
  });
  app = createRunnerApp(environment, null);
  bundle = await packChallengeDir(path.join(FIXTURES, "exploit-node"));
  submission = await packDir(path.join(FIXTURES, "exploit-node", "reference"));
  first = await run({ runId: "cache-1", drawKey: DRAW_KEY });
}, 120_000);

async function run(job: Record<string, unknown>, bytes = submission): Promise<RunReport> {
  const res = await app.request("/v1/runs", {
    method: "POST",
    body: form({ job: JSON.stringify(job), submission: bytes, bundle }),
  });
  expect(res.status).toBe(200);
  return RunReportSchema.parse(await res.json());
}

function entries(): string[] {
  return readdirSync(cacheDir).filter((f) => f.endsWith(".json"));
}

/** The cache key of a run of `bytes` with `job`'s draw key and limits, as the service builds it. */
async function keyOf(job: { drawKey?: string; limits?: Record<string, number> }, bytes: Buffer) {
  const challenge = await prepareChallenge(bundle, resolvePrepareOptions(environment));
  if (!challenge.ok) throw new Error(JSON.stringify(challenge.error));
  return buildRunCacheKey({
    challenge: challenge.value,
    submissionSha256: createHash("sha256").update(bytes).digest("hex"),
    ...(job.drawKey !== undefined ? { drawKey: job.drawKey } : {}),
    requestedLimits: job.limits ?? {},
    environment,
  });
}

/** The report without what a reuse changes: its run id and the note saying so. */
function verdictOf(r: RunReport) {
  return { ...r, runId: null, notes: r.notes.filter((n) => !REUSED.test(n)) };
}

describe("the run cache", () => {
  it("runs the same bytes once and answers its report under each run's own id, labelled", async () => {
    expect(first.runId).toBe("cache-1");
    expect(first.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
    expect(first.notes.some((n) => REUSED.test(n))).toBe(false);
    expect(refuseToCache(first)).toBeNull();
    const stored = entries().length;

    const second = await run({ runId: "cache-2", drawKey: DRAW_KEY });
    expect(second.runId).toBe("cache-2");
    expect(second.notes.at(-1)).toMatch(REUSED);
    expect(verdictOf(second)).toEqual(verdictOf(first));
    expect(entries()).toHaveLength(stored);
  }, 120_000);

  it("never writes the draw key, only its sha256", () => {
    for (const f of entries()) {
      const text = readFileSync(path.join(cacheDir, f), "utf8");
      expect(text).not.toContain(DRAW_KEY);
      expect(text).toContain('"drawKeySha256"');
    }
  });

  it("runs again for another draw key or other limits", async () => {
    const stored = entries().length;
    const otherKey = await run({ runId: "cache-3", drawKey: OTHER_DRAW_KEY });
    expect(otherKey.notes.some((n) => REUSED.test(n))).toBe(false);
    expect(entries()).toHaveLength(stored + 1);

    const lowered = await run({
      runId: "cache-4",
      drawKey: DRAW_KEY,
      limits: { testTimeoutMs: 5000 },
    });
    expect(lowered.notes.some((n) => REUSED.test(n))).toBe(false);
    expect(lowered.limits.testTimeoutMs).toBe(5000);
    expect(entries()).toHaveLength(stored + 2);
    expect((await run({ runId: "cache-5", drawKey: OTHER_DRAW_KEY })).notes.at(-1)).toMatch(REUSED);
  }, 180_000);

  it("misses when any ingredient of the key changed", async () => {
    const key = await keyOf({ drawKey: DRAW_KEY }, submission);
    expect(readCachedRun(cacheDir, key, "k").ok).toBe(true);
    const changed: RunCacheKey[] = [
      { ...key, submissionSha256: "0".repeat(64) },
      { ...key, bundleSha256: "0".repeat(64) },
      { ...key, drawKeySha256: null },
      { ...key, requestedLimits: { testTimeoutMs: 100 } },
      { ...key, runnerFingerprint: "0".repeat(64) },
      { ...key, runtimes: { ...key.runtimes, node22: "v22.0.0" } },
      { ...key, ceilings: { ...key.ceilings, TEST_TIMEOUT_MS: 5000 } },
      { ...key, archive: { ...key.archive, maxEntries: 1 } },
      { ...key, cgroups: "v9" },
    ];
    for (const k of changed)
      expect(readCachedRun(cacheDir, k, "k")).toEqual({ ok: false, miss: "absent" });
  });

  it("misses when the runner would now refuse the archive (a lower archive limit)", async () => {
    const key = await keyOf({ drawKey: DRAW_KEY }, submission);
    expect(readCachedRun(cacheDir, key, "k").ok).toBe(true);
    for (const lowered of [
      { MAX_ARCHIVE_BYTES: submission.length - 1 },
      { MAX_EXPANDED_BYTES: 1024 },
      { MAX_ENTRIES: 1 },
      { MAX_DEPTH: 1 },
    ]) {
      const stricter = { ...environment, config: { ...environment.config, ...lowered } };
      const challenge = await prepareChallenge(bundle, resolvePrepareOptions(environment));
      if (!challenge.ok) throw new Error(JSON.stringify(challenge.error));
      const k = buildRunCacheKey({
        challenge: challenge.value,
        submissionSha256: key.submissionSha256,
        drawKey: DRAW_KEY,
        requestedLimits: {},
        environment: stricter,
      });
      expect(readCachedRun(cacheDir, k, "k"), JSON.stringify(lowered)).toEqual({
        ok: false,
        miss: "absent",
      });
    }
  });

  it("ignores a corrupt or tampered entry, runs again and replaces it", async () => {
    const key = await keyOf({ drawKey: DRAW_KEY }, submission);
    const file = runCacheEntryPath(cacheDir, key);
    const entry = JSON.parse(readFileSync(file, "utf8")) as { key: RunCacheKey; report: RunReport };
    const tampered = (report: unknown, storedKey: unknown = entry.key) =>
      writeFileSync(file, JSON.stringify({ ...entry, key: storedKey, report }));

    // Another submission's report under this key: what the bytes asked for never ran.
    tampered({ ...entry.report, submissionSha256: "0".repeat(64) });
    expect(readCachedRun(cacheDir, key, "k")).toEqual({
      ok: false,
      miss: "corrupt: the report does not match its key",
    });
    // A report an outside condition shaped cannot be read back either.
    tampered({ ...entry.report, scan: { ...entry.report.scan, status: "partial" } });
    expect(readCachedRun(cacheDir, key, "k")).toMatchObject({ ok: false });
    tampered({ ...entry.report, extra: 1 });
    expect(readCachedRun(cacheDir, key, "k")).toEqual({
      ok: false,
      miss: "corrupt: not a run report",
    });
    tampered(entry.report, { ...entry.key, drawKeySha256: null });
    expect(readCachedRun(cacheDir, key, "k")).toEqual({ ok: false, miss: "stale" });

    writeFileSync(file, "{ not json");
    const again = await run({ runId: "cache-6", drawKey: DRAW_KEY });
    expect(again.notes.some((n) => REUSED.test(n))).toBe(false);
    const verdicts = (r: RunReport) => r.staticTests.map((t) => [t.id, t.status]);
    expect(verdicts(again)).toEqual(verdicts(first));
    expect(readCachedRun(cacheDir, key, "k").ok).toBe(true);
  }, 120_000);

  it("never keeps a report an outside condition shaped", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bouts-run-cache-refused-"));
    const key = await keyOf({ drawKey: DRAW_KEY }, submission);
    const shaped: [RunReport, string][] = [
      [
        { ...first, infrastructure: { reason: "sandbox-unavailable", message: "bwrap failed" } },
        "infrastructure: sandbox-unavailable",
      ],
      [{ ...first, scan: { ...first.scan, status: "partial" } }, "scan partial"],
      [{ ...first, scan: { ...first.scan, status: "unavailable" } }, "scan unavailable"],
      [{ ...first, budget: { ...first.budget!, exhausted: true } }, "run budget exhausted"],
      [
        {
          ...first,
          scan: {
            ...first.scan,
            advisories: { source: "osv-api", asOf: first.timings.startedAt, packages: 1 },
          },
        },
        "advisories not from the shipped snapshot",
      ],
      [
        {
          ...first,
          scan: {
            ...first.scan,
            advisories: {
              source: "snapshot",
              asOf: first.timings.startedAt,
              packages: 1,
              fallback: "osv-api timed out",
            },
          },
        },
        "advisories not from the shipped snapshot",
      ],
    ];
    for (const [report, why] of shaped) {
      expect(refuseToCache(report)).toBe(why);
      expect(storeCachedRun(dir, key, report)).toBe(why);
      expect(readdirSync(dir)).toEqual([]);
    }
    expect(storeCachedRun(dir, key, first)).toBeNull();
    expect(readCachedRun(dir, key, "k")).toMatchObject({ ok: true, report: { runId: "k" } });
  });

  it("answers the run's report when the cache cannot be written, and keeps nothing", async () => {
    // The cache "directory" is a file: every write fails, as on a full or read-only disk.
    const blocked = path.join(mkdtempSync(path.join(tmpdir(), "bouts-run-cache-blocked-")), "file");
    writeFileSync(blocked, "not a directory\n");
    const key = await keyOf({ drawKey: DRAW_KEY }, submission);
    expect(storeCachedRun(blocked, key, first)).toMatch(/^the cache could not be written \(/);
    const blockedApp = createRunnerApp(
      await createTestEnvironment({ RUNNER_SELF_TEST: "off", RUNNER_RUN_CACHE_DIR: blocked }),
      null,
    );
    for (const runId of ["blocked-1", "blocked-2"]) {
      const res = await blockedApp.request("/v1/runs", {
        method: "POST",
        body: form({ job: JSON.stringify({ runId, drawKey: DRAW_KEY }), submission, bundle }),
      });
      expect(res.status).toBe(200);
      const report = RunReportSchema.parse(await res.json());
      expect(report.runId).toBe(runId);
      expect(report.notes.some((n) => REUSED.test(n))).toBe(false);
      expect(report.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
    }
    expect(readFileSync(blocked, "utf8")).toBe("not a directory\n");
  }, 120_000);
});
