/**
 * The sandbox launch path: sandboxes of one uid are forked by one long-lived launcher that lives
 * in the uid's cgroups, so they are born there; the launcher survives the sweeps between
 * sandboxes; a launcher that dies takes its in-flight sandbox with it, which is reported as
 * killed, and the next sandbox gets a new launcher. Only our own one-line probes run here, and
 * only through the sandbox.
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunnerEnvironment } from "../src/job.ts";
import { resolveLauncherPid } from "../src/sandbox/launcher.ts";
import { runSandboxed, type SandboxSpec } from "../src/sandbox/sandbox.ts";
import { createTestEnvironment } from "./helpers.ts";

let environment: RunnerEnvironment;
let uid: number;
let scratch: string;

beforeAll(async () => {
  environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
  uid = environment.config.UID_BASE;
  scratch = path.join(environment.config.WORK_DIR, "scratch");
  mkdirSync(scratch, { mode: 0o755 });
});

function nodeSpec(code: string, extra: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    bwrapBin: environment.config.BWRAP_BIN,
    hostUid: uid,
    argv: ["/opt/bouts/bin/node", "-e", code],
    env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
    cwd: "/work",
    readOnlyMounts: [
      { src: scratch, dest: "/work" },
      { src: environment.paths.nodeBin, dest: "/opt/bouts/bin/node" },
    ],
    limits: {
      memoryMb: 256,
      cpuSeconds: 10,
      maxProcesses: 32,
      maxOpenFiles: 64,
      maxFileSizeMb: 8,
      maxOutputBytes: 65536,
      wallMs: 10_000,
      addressSpaceMb: environment.cgroups ? null : 4096,
    },
    cgroups: environment.cgroups,
    name: "sandbox-test",
    ...extra,
  };
}

function parentOf(pid: number): number {
  return Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

describe("sandbox launcher", () => {
  it("forks every sandbox of a uid from one launcher that lives in the uid's cgroups", async () => {
    const launchers: number[] = [];
    const seen: { cgroup: string; oomAdj: string }[] = [];
    for (let i = 0; i < 2; i += 1) {
      const o = await runSandboxed(
        nodeSpec("require('fs').writeSync(3, 'hello\\n'); process.exitCode = 7", {
          onStarted: (pid) => {
            // bwrap is the sandbox's parent; the launcher is bwrap's parent.
            launchers.push(parentOf(parentOf(pid)));
            seen.push({
              cgroup: readFileSync(`/proc/${pid}/cgroup`, "utf8"),
              oomAdj: readFileSync(`/proc/${pid}/oom_score_adj`, "utf8").trim(),
            });
          },
        }),
      );
      expect(o.started).toBe(true);
      expect(o.exitCode).toBe(7);
      expect(o.channel).toBe("hello\n");
    }
    const key = `uid-${uid}-${process.pid}`;
    expect(launchers[0]).toBe(resolveLauncherPid(key));
    expect(launchers[1]).toBe(launchers[0]);
    for (const s of seen) {
      // Sandboxed code is what the kernel's OOM killer picks first, never the launcher.
      expect(s.oomAdj).toBe("1000");
      if (environment.cgroups) expect(s.cgroup).toContain(key);
    }
    if (environment.cgroups)
      expect(readFileSync(`/proc/${launchers[0]}/cgroup`, "utf8")).toContain(key);
  }, 60_000);

  it("reports a sandbox whose launcher died as killed, and starts a new launcher", async () => {
    const key = `uid-${uid}-${process.pid}`;
    const first = resolveLauncherPid(key) ?? 0;
    const o = await runSandboxed(
      nodeSpec("setTimeout(() => require('fs').writeSync(3, 'late\\n'), 5000)", {
        onStarted: () => process.kill(first, "SIGKILL"),
      }),
    );
    expect(first).toBeGreaterThan(0);
    expect(o.exitCode).toBeNull();
    expect(o.signal).toBe("SIGKILL");
    expect(o.channel).toBe("");
    expect(o.durationMs).toBeLessThan(4000);
    const next = await runSandboxed(nodeSpec("0"));
    expect(next.started).toBe(true);
    expect(next.exitCode).toBe(0);
    expect(resolveLauncherPid(key)).not.toBe(first);
  }, 60_000);

  it("never starts a sandbox whose bwrap cannot be executed", async () => {
    const o = await runSandboxed(nodeSpec("0", { bwrapBin: "/nonexistent/bwrap" }));
    expect(o.started).toBe(false);
    expect(o.startError).toContain("sandbox launch failed");
    expect(o.exitCode).toBe(127);
  }, 60_000);
});
