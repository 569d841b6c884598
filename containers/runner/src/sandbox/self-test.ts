/**
 * @module runner/sandbox/self-test
 * Proves isolation before the runner accepts work: a probe runs in a real sandbox (same launch
 * chain as tests) and must show an unprivileged uid with no capabilities, its own pid
 * namespace, a read-only system and workspace, no route to the host's loopback or the
 * internet, no host files, a cleared environment and the configured process cap. Python must
 * start and import pytest from its read-only tools mount. Any failed check fails the self-test,
 * and the service refuses to start (fail closed).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { err, ok, type Result } from "../result.ts";
import type { CgroupSupport } from "./cgroup.ts";
import type { RuntimePaths } from "./runtime.ts";
import { runSandboxed, type SandboxLimits } from "./sandbox.ts";

/** What the self-test saw; `checks` lists each property proven. */
export interface SelfTestReport {
  checks: string[];
  cgroups: string;
  durationMs: number;
}

/** Why the runner must not start. */
export type SelfTestError = { reason: "self-test-failed"; failures: string[] };

const PROBE_LIMITS: SandboxLimits = {
  memoryMb: 512,
  cpuSeconds: 10,
  maxProcesses: 64,
  maxOpenFiles: 128,
  maxFileSizeMb: 8,
  maxOutputBytes: 64 * 1024,
  wallMs: 15_000,
  addressSpaceMb: null,
};

/** Runs the isolation probes; resolves ok only if every check passed. */
export async function runSelfTest(opts: {
  bwrapBin: string;
  hostUid: number;
  paths: RuntimePaths;
  cgroups: CgroupSupport | null;
  scratchDir: string;
}): Promise<Result<SelfTestReport, SelfTestError>> {
  const t0 = performance.now();
  const server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const canary = "BOUTS_SELF_TEST_CANARY";
  process.env[canary] = "secret";
  const failures: string[] = [];
  const seen: { hostUids: string[] | null } = { hostUids: null };
  const checks: string[] = [];
  const limits = { ...PROBE_LIMITS, addressSpaceMb: opts.cgroups ? null : 4096 };
  try {
    const node = await runSandboxed({
      bwrapBin: opts.bwrapBin,
      hostUid: opts.hostUid,
      argv: [
        "/opt/bouts/bin/node",
        "/opt/bouts/harness/self-test.mjs",
        String(port),
        opts.paths.harnessDir,
        canary,
      ],
      env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
      cwd: "/work",
      readOnlyMounts: [
        { src: opts.scratchDir, dest: "/work" },
        { src: opts.paths.nodeBin, dest: "/opt/bouts/bin/node" },
        { src: path.join(opts.paths.harnessDir, "node"), dest: "/opt/bouts/harness" },
      ],
      limits,
      cgroups: opts.cgroups,
      name: `self-test-${process.pid}-${Date.now()}`,
      onStarted: (pid) => {
        try {
          seen.hostUids =
            /Uid:\s+(\d+)\s+(\d+)\s+(\d+)/
              .exec(readFileSync(`/proc/${pid}/status`, "utf8"))
              ?.slice(1) ?? null;
        } catch {
          seen.hostUids = null;
        }
      },
    });
    if (!node.started) {
      return err({
        reason: "self-test-failed",
        failures: [`sandbox did not start: ${node.startError}`],
      });
    }
    const line = node.channel.split("\n").find((l) => l.includes('"self-test"'));
    if (!line) {
      return err({
        reason: "self-test-failed",
        failures: [`probe reported nothing (exit ${node.exitCode}): ${node.stderr.slice(0, 500)}`],
      });
    }
    const p = JSON.parse(line) as Record<string, unknown>;
    const check = (okay: boolean, what: string) => (okay ? checks : failures).push(what);
    check(p.uid === 65534, `runs as uid 65534 in the sandbox (saw ${String(p.uid)})`);
    check(
      seen.hostUids !== null && seen.hostUids.every((u) => u === String(opts.hostUid)),
      `runs as unprivileged host uid ${opts.hostUid} (host saw ${JSON.stringify(seen.hostUids)})`,
    );
    check(p.capEff === "0000000000000000", `holds no capabilities (CapEff ${String(p.capEff)})`);
    check(
      typeof p.visiblePids === "number" && p.visiblePids <= 3,
      `own pid namespace (${String(p.visiblePids)} pids visible)`,
    );
    check(p.writeUsr === false, "system folders are read-only");
    check(p.writeWork === false, "the workspace is read-only");
    check(p.writeTmp === true, "a private /tmp is writable");
    check(p.hostLoopback === false, "cannot reach the host's loopback");
    check(p.external === false, "cannot reach the internet");
    check(p.hostPathVisible === false, "host files are not visible");
    check(
      Array.isArray(p.secretsVisible) && p.secretsVisible.length === 0,
      `no /root, /home or /etc (saw ${JSON.stringify(p.secretsVisible)})`,
    );
    check(p.canarySeen === false, "the host environment is not inherited");
    check(
      p.maxProcesses === String(limits.maxProcesses),
      `process cap applied (${String(p.maxProcesses)})`,
    );

    const py = await runSandboxed({
      bwrapBin: opts.bwrapBin,
      hostUid: opts.hostUid,
      argv: [
        opts.paths.pythonBin,
        "-I",
        "-B",
        "-c",
        "import sys; sys.path.insert(0, '/opt/bouts/pytools'); import pytest, os; os.write(3, (pytest.__version__ + '\\n').encode())",
      ],
      env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
      cwd: "/work",
      readOnlyMounts: [
        { src: opts.scratchDir, dest: "/work" },
        { src: opts.paths.pythonTools, dest: "/opt/bouts/pytools" },
      ],
      limits: { ...limits, addressSpaceMb: opts.cgroups ? null : 1024 },
      cgroups: opts.cgroups,
      name: `self-test-py-${process.pid}-${Date.now()}`,
    });
    check(
      py.started && /^\d+\.\d+/.test(py.channel.trim()),
      `python runs with pytest ${py.channel.trim()}${py.started ? "" : `: ${py.startError}`}${py.stderr ? ` ${py.stderr.slice(0, 300)}` : ""}`,
    );
  } finally {
    delete process.env[canary];
    server.close();
  }
  if (failures.length > 0) return err({ reason: "self-test-failed", failures });
  return ok({
    checks,
    cgroups: opts.cgroups
      ? `cgroup v${opts.cgroups.version} (memory, pids, cpu)`
      : "none: rlimits only",
    durationMs: Math.round(performance.now() - t0),
  });
}
