/**
 * @module runner/environment
 * Builds the per-process runner environment from config: interpreter paths, cgroup support,
 * the uid pool, runtime versions, and the start-up self-test. Invariant: `createRunnerEnvironment`
 * only succeeds after the self-test proved isolation (unless config turns the self-test off,
 * which the service never does by default).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { RunnerConfig } from "./config.ts";
import type { RunnerEnvironment } from "./job.ts";
import { err, ok, type Result } from "@bouts/result";
import { detectCgroups } from "./sandbox/cgroup.ts";
import type { RuntimePaths } from "./sandbox/runtime.ts";
import { runSelfTest, type SelfTestReport } from "./sandbox/self-test.ts";
import { stageRuntimePaths } from "./sandbox/stage.ts";
import { UidPool } from "./sandbox/uid-pool.ts";

/** Why the runner cannot start. */
export type EnvironmentError =
  | { reason: "missing-tool"; path: string; what: string }
  | { reason: "self-test-failed"; failures: string[] };

/** Resolves host paths of interpreters and tools from config. */
export function resolveRuntimePaths(config: RunnerConfig): RuntimePaths {
  return {
    nodeBin: config.NODE_BIN,
    pythonBin: config.PYTHON_BIN,
    pythonTools: path.join(config.PYTHON_TOOLS, "lib", "python3.11", "site-packages"),
    harnessDir: path.resolve(import.meta.dirname, "..", "harness"),
  };
}

/** Checks tools, detects cgroups, runs the self-test and returns the shared environment. */
export async function createRunnerEnvironment(
  config: RunnerConfig,
): Promise<
  Result<{ environment: RunnerEnvironment; selfTest: SelfTestReport | null }, EnvironmentError>
> {
  const paths = resolveRuntimePaths(config);
  const tools: [string, string][] = [
    [config.BWRAP_BIN, "bubblewrap (run npm run setup)"],
    [paths.nodeBin, "Node 22"],
    [paths.pythonBin, "Python 3.11"],
    [paths.pythonTools, "pytest venv (run npm run setup)"],
  ];
  for (const [p, what] of tools)
    if (!existsSync(p)) return err({ reason: "missing-tool", path: p, what });
  if (!paths.pythonBin.startsWith("/usr/")) {
    return err({
      reason: "missing-tool",
      path: paths.pythonBin,
      what: "a Python under /usr (the sandbox mounts only /usr)",
    });
  }
  mkdirSync(config.WORK_DIR, { recursive: true, mode: 0o755 });
  // The sandbox's unprivileged uid must traverse the work dir to reach its read-only mounts.
  chmodSync(config.WORK_DIR, 0o755);
  // Mount sources under the work dir, so a sandbox's mountinfo shows no checkout path.
  const staged = stageRuntimePaths(config.WORK_DIR, paths);
  const scratch = path.join(config.WORK_DIR, "self-test");
  mkdirSync(scratch, { recursive: true, mode: 0o755 });
  const cgroups = detectCgroups("/sys/fs/cgroup", config.MAX_CONCURRENT_RUNS);
  const versions = {
    node22: execFileSync(paths.nodeBin, ["--version"], { encoding: "utf8" }).trim(),
    "python3.11": execFileSync(paths.pythonBin, ["--version"], { encoding: "utf8" })
      .trim()
      .replace(/^Python /, ""),
  };
  const environment: RunnerEnvironment = {
    config,
    paths: staged,
    cgroups,
    uidPool: new UidPool(config.UID_BASE, config.MAX_CONCURRENT_RUNS),
    runtimeVersions: versions,
  };
  if (config.SELF_TEST === "off") return ok({ environment, selfTest: null });
  const lease = await environment.uidPool.acquire();
  try {
    const st = await runSelfTest({
      bwrapBin: config.BWRAP_BIN,
      hostUid: lease.uid,
      paths: staged,
      cgroups,
      scratchDir: scratch,
    });
    if (!st.ok) return st;
    return ok({ environment, selfTest: st.value });
  } finally {
    lease.release();
  }
}
