/**
 * @module e2e/platform
 * A private `npm start` for the browser tests: its own free ports, its own temporary wrangler
 * state, credentials file and runner work directory, runner uids from 67000, and only the
 * example challenges asked for. Invariants: every process it starts carries a run marker in
 * its environment, and `stop()` ends exactly those process groups (SIGTERM, then SIGKILL),
 * never anything found by name; the temporary directory is removed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { sweepScratchMounts } from "../containers/runner/src/sandbox/scratch-mount.ts";

/** Repository root. */
export const ROOT = path.join(import.meta.dirname, "..");
/**
 * First host uid of the e2e tests' runners (other runners on the host use other bases);
 * `E2E_RUNNER_UID_BASE` overrides it where several checkouts run the e2e tests at once.
 */
export const E2E_RUNNER_UID_BASE = Number(process.env.E2E_RUNNER_UID_BASE ?? "67000");
/**
 * Host uids between the runners of two e2e files that run at once: a runner takes two per
 * concurrent run (`RUNNER_MAX_CONCURRENT_RUNS`, at most 64), and two runners must never share
 * one (docs/runner.md, "Isolation").
 */
export const E2E_UIDS_PER_WORKER = 200;

/**
 * The first uid of this test file's runner: the e2e project runs files side by side, one per
 * vitest worker (`VITEST_POOL_ID`, 1 and up, unique among the files running at once).
 */
export function runnerUidBase(env: NodeJS.ProcessEnv = process.env): number {
  const pool = Number(env.VITEST_POOL_ID ?? "1");
  if (!Number.isSafeInteger(pool) || pool < 1)
    throw new Error(`VITEST_POOL_ID must be 1 or more, not ${JSON.stringify(env.VITEST_POOL_ID)}`);
  return E2E_RUNNER_UID_BASE + (pool - 1) * E2E_UIDS_PER_WORKER;
}

/** What `npm start` writes to its credentials file. */
export interface Credentials {
  api: string;
  operator: { id: string; key: string };
  agent: { id: string; key: string };
  challenges: { id: string; slug: string; status: string }[];
}

/** A running private platform. */
export interface Platform {
  api: string;
  credentials: Credentials;
  /** Process ids of this platform (and only this one) whose command line contains `text`. */
  pidsRunning(text: string): number[];
  /** Stops every process of this platform and removes its state. */
  stop(): Promise<void>;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port p with p and p + 10 000 (wrangler's inspector) both free. */
async function findPorts(): Promise<{ worker: number; runner: number }> {
  for (let i = 0; i < 200; i++) {
    const worker = 20_000 + Math.floor(Math.random() * 9_000);
    const runner = worker + 1;
    if ((await isFree(worker)) && (await isFree(worker + 10_000)) && (await isFree(runner))) {
      return { worker, runner };
    }
  }
  throw new Error("no free ports for the e2e platform");
}

/** Process ids whose environment carries `marker` (read from /proc). */
function markedPids(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, "latin1");
      if (env.split("\0").includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

function signalGroups(pids: number[], signal: NodeJS.Signals): void {
  const groups = new Set<number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // pid (comm) state ppid pgrp …: comm may hold spaces, so read after the last ')'.
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp > 1) groups.add(pgrp);
    } catch {
      // Already gone.
    }
  }
  for (const group of groups) {
    try {
      process.kill(-group, signal);
    } catch {
      // Already gone.
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `npm start` with private ports and state, seeding `seed` (challenge slugs); resolves
 * once the credentials are written and every seeded challenge is published.
 */
export async function startPlatform(options: {
  seed: string[];
  logFile: string;
  timeoutMs: number;
  /** More environment for `npm start` (e.g. BOUTS_CRON_INTERVAL_SECONDS). */
  env?: Record<string, string>;
}): Promise<Platform> {
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-e2e-"));
  const ports = await findPorts();
  const marker = `BOUTS_E2E_RUN=${path.basename(dir)}`;
  const credentialsFile = path.join(dir, "credentials.json");
  // Beside `dir`, not in it: the runner's sandbox uids must traverse the work directory, and
  // mkdtemp makes `dir` private to us.
  const runnerDir = `${dir}-runner`;
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile);
  const launch = (): ChildProcess => {
    const child = spawn("npm", ["start"], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        BOUTS_E2E_RUN: path.basename(dir),
        BOUTS_PORT: String(ports.worker),
        RUNNER_PORT: String(ports.runner),
        BOUTS_STATE_DIR: path.join(dir, "state"),
        BOUTS_CREDENTIALS: credentialsFile,
        BOUTS_SEED: options.seed.join(","),
        RUNNER_UID_BASE: String(runnerUidBase()),
        RUNNER_WORK_DIR: runnerDir,
        ...options.env,
      },
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    return child;
  };
  let child = launch();

  // A runner killed mid-run leaves its scratch tmpfs mounted; the folder goes only after them.
  const removeRunnerDir = async () => {
    await sweepScratchMounts(runnerDir);
    rmSync(runnerDir, { recursive: true, force: true });
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // npm start stops its children on SIGTERM; whatever still carries the marker after a grace
    // period is killed, group by group.
    signalGroups([child.pid ?? -1, ...markedPids(marker)], "SIGTERM");
    for (let i = 0; i < 40 && markedPids(marker).length > 0; i++) await sleep(250);
    signalGroups(markedPids(marker), "SIGKILL");
    for (let i = 0; i < 20 && markedPids(marker).length > 0; i++) await sleep(250);
    log.end();
    await removeRunnerDir();
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + options.timeoutMs;
  // `wrangler dev` reloads when a source file changes, failing a request in flight; on a
  // machine where someone is editing, such a failure during seeding gets a fresh start (new
  // state: the seeded challenge belongs to the operator of the failed try). CI edits nothing.
  let retries = 2;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        if (retries-- > 0) {
          log.write(`\n[e2e] npm start exited with ${child.exitCode}; starting it once more\n`);
          signalGroups(markedPids(marker), "SIGTERM");
          for (let i = 0; i < 40 && markedPids(marker).length > 0; i++) await sleep(250);
          rmSync(path.join(dir, "state"), { recursive: true, force: true });
          await removeRunnerDir();
          child = launch();
          continue;
        }
        throw new Error(`npm start exited with ${child.exitCode}; see ${options.logFile}`);
      }
      if (existsSync(credentialsFile)) {
        const credentials = JSON.parse(readFileSync(credentialsFile, "utf8")) as Credentials;
        const unpublished = options.seed.filter(
          (slug) =>
            !credentials.challenges.some((c) => c.slug === slug && c.status === "published"),
        );
        if (unpublished.length > 0) {
          throw new Error(`not published: ${unpublished.join(", ")}; see ${options.logFile}`);
        }
        const pidsRunning = (text: string) =>
          markedPids(marker).filter((pid) => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(text);
            } catch {
              return false;
            }
          });
        return { api: credentials.api, credentials, pidsRunning, stop };
      }
      await sleep(500);
    }
    throw new Error(
      `npm start was not ready within ${options.timeoutMs} ms; see ${options.logFile}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
}
