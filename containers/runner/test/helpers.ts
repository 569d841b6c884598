/**
 * Test helpers: a runner environment in a temporary work dir, and prepared fixture challenges.
 * Untrusted code in these tests only ever runs through the sandbox.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import {
  computeSha256,
  packDir,
  packChallengeDir,
  prepareChallenge,
  type PreparedChallenge,
} from "../src/challenge/bundle.ts";
import { parseRunnerConfig, type RunnerConfig } from "../src/config.ts";
import { createRunnerEnvironment } from "../src/environment.ts";
import { randomUUID } from "node:crypto";
import type { RunLimits, RunReport } from "@bouts/contracts";
import type { TestJudgement } from "../src/run/analyze.ts";
import { runJob, type RunnerEnvironment } from "../src/job.ts";
import { resolvePrepareOptions } from "../src/challenge/prepare-options.ts";

export const FIXTURES = path.join(import.meta.dirname, "fixtures");
export const EXPLOITS = path.join(import.meta.dirname, "exploits");
export const CHALLENGES = path.resolve(import.meta.dirname, "../../../challenges");

/**
 * Runner tests own uids 62000–65999: 500 per vitest worker, 8 per environment.
 * `BOUTS_TEST_UID_BASE` moves the range, for several checkouts testing on one host at once.
 */
const TEST_UID_BASE = Number(process.env.BOUTS_TEST_UID_BASE ?? "62000");
const POOL_SLOT = (Number(process.env.VITEST_POOL_ID ?? "1") - 1) % 8;
let environmentCount = 0;

/** A config with a private work dir and the given overrides. */
export function buildTestConfig(overrides: Record<string, string> = {}): RunnerConfig {
  const workDir = mkdtempSync(path.join(tmpdir(), "bouts-runner-test-"));
  // Test files run in parallel processes: give each environment its own uid range, as
  // separate runner processes on one host must have (docs/runner.md). A random base collided
  // now and then (two files sharing uids share RLIMIT_NPROC); vitest's pool id is unique among
  // the workers running at once, and the counter separates environments within one file.
  const uidBase = String(TEST_UID_BASE + POOL_SLOT * 500 + (environmentCount++ % 62) * 8);
  const r = parseRunnerConfig({ RUNNER_WORK_DIR: workDir, RUNNER_UID_BASE: uidBase, ...overrides });
  if (!r.ok) throw new Error(r.error.issues.join("; "));
  if (r.value.MAX_CONCURRENT_RUNS > 4)
    throw new Error("a test environment has 8 uids: at most 4 runs");
  return r.value;
}

/** Creates an environment (with the self-test unless turned off). */
export async function createTestEnvironment(
  overrides: Record<string, string> = {},
): Promise<RunnerEnvironment> {
  const config = buildTestConfig(overrides);
  const env = await createRunnerEnvironment(config);
  if (!env.ok) throw new Error(`runner environment failed: ${JSON.stringify(env.error)}`);
  return env.value.environment;
}

/** Packs and prepares a challenge folder. */
export async function prepareDir(
  environment: RunnerEnvironment,
  dir: string,
): Promise<PreparedChallenge> {
  const bytes = await packChallengeDir(dir);
  const r = await prepareChallenge(bytes, resolvePrepareOptions(environment));
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

/** A multipart body from named parts (strings as fields, buffers as files). */
export function form(parts: Record<string, string | Buffer>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === "string") f.append(k, v);
    else f.append(k, new Blob([new Uint8Array(v)]), k);
  }
  return f;
}

/** Calls `onLine` for each non-blank line of a child's output stream. */
export function onLines(stream: Readable, onLine: (line: string) => void): void {
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() !== "") onLine(line);
    }
  });
}

/** Resolves with a child's exit code once it has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

/** Live (non-zombie) processes of `env`'s sandbox uids: each as "pid cmdline". */
export function listSandboxProcesses(env: RunnerEnvironment): string[] {
  const lo = env.config.UID_BASE;
  const hi = lo + 2 * env.config.MAX_CONCURRENT_RUNS;
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const uid = Number(/Uid:\s+(\d+)/.exec(status)?.[1]);
      // A zombie runs nothing; it only waits for its parent to collect its exit status.
      const zombie = /State:\s+Z/.test(status);
      if (uid >= lo && uid < hi && !zombie)
        found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8")}`);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/**
 * Packs the submission folder `dir` and runs it through a whole job (in the sandbox) against
 * `challenge`; the report, or a thrown error naming the job's refusal.
 */
export async function runSubmissionDir(
  environment: RunnerEnvironment,
  challenge: PreparedChallenge,
  dir: string,
  options: {
    runId?: string;
    limits?: Partial<RunLimits>;
    onTest?: (id: string, judgement: TestJudgement) => void;
  } = {},
): Promise<RunReport> {
  const submission = await packDir(dir);
  const r = await runJob({
    runId: options.runId ?? `test-${randomUUID().slice(0, 8)}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: options.limits ?? {},
    environment,
    onTest: options.onTest,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}
