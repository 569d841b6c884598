/**
 * @module runner/sandbox/self-test
 * Proves isolation before the runner accepts work: probes run in a real sandbox, by the same
 * launch chain as tests, and must show every property `runSelfTest` lists (docs/runner.md,
 * "Isolation"). Invariant: any failed check fails the self-test, and the service refuses to start
 * (fail closed).
 */
import { mkdtempSync, readFileSync, rmdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { err, ok, type Result } from "@bouts/result";
import type { CgroupSupport } from "./cgroup.ts";
import type { RuntimePaths } from "./runtime.ts";
import {
  computeScratchCaps,
  runSandboxed,
  type SandboxLimits,
  type ScratchCaps,
} from "./sandbox.ts";

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

const MIB = 1024 * 1024;
/** Where the probe's writable mount appears in its sandbox. */
const PROBE_WRITABLE = "/chan";

/**
 * Writes one byte to / and /dev (and /dev/null, which must stay usable), then fills each
 * writable file system with 1 MiB files (under RLIMIT_FSIZE) until a write fails or `limit`
 * bytes are written; reports the errno names on fd 3.
 */
const SCRATCH_PROBE = `
import errno, json, os, sys
limit = int(sys.argv[1])
def name(e):
    return errno.errorcode.get(e.errno, str(e.errno))
def attempt(p):
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
        return "written"
    except OSError as e:
        return name(e)
def fill(d):
    written, stop, chunk = 0, "limit", b"\\0" * 65536
    try:
        for i in range(limit // (1 << 20) + 1):
            fd = os.open(f"{d}/fill-{i}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                for _ in range(16):
                    written += os.write(fd, chunk)
            finally:
                os.close(fd)
    except OSError as e:
        stop = name(e)
    return {"bytes": written, "stop": stop}
report = {"k": "scratch", "root": attempt("/bouts-self-test"), "dev": attempt("/dev/bouts-self-test"),
          "devNull": attempt("/dev/null"),
          "fills": {d: fill(d) for d in ("/tmp", "/dev/shm", "${PROBE_WRITABLE}")}}
os.write(3, (json.dumps(report) + "\\n").encode())
`;

/** What the disk-cap probe saw: errno names (or "written") and how far each fill got. */
export interface ScratchProbe {
  root: string;
  dev: string;
  devNull: string;
  fills: Record<string, { bytes: number; stop: string }>;
}

/**
 * Checks the disk-cap probe against the caps: / and /dev refuse writes, /dev/null takes them,
 * and /tmp, /dev/shm and the writable mount each took at least half their cap and then stopped
 * with ENOSPC without passing it.
 */
export function validateScratchProbe(
  probe: ScratchProbe,
  caps: ScratchCaps,
): Result<string[], SelfTestError> {
  const checks: string[] = [];
  const failures: string[] = [];
  const check = (okay: boolean, what: string) => (okay ? checks : failures).push(what);
  check(probe.root !== "written", `the root is read-only (${probe.root})`);
  check(probe.dev !== "written", `/dev is read-only (${probe.dev})`);
  check(probe.devNull === "written", `/dev/null stays writable (${probe.devNull})`);
  const expected: [string, number][] = [
    ["/tmp", caps.tmpBytes],
    ["/dev/shm", caps.shmBytes],
    [PROBE_WRITABLE, caps.writableBytes],
  ];
  for (const [dir, cap] of expected) {
    const f = probe.fills[dir];
    check(
      f !== undefined && f.stop === "ENOSPC" && f.bytes <= cap && f.bytes >= cap / 2,
      `${dir} stops at its cap of ${cap / MIB} MiB (${f ? `wrote ${f.bytes} bytes, then ${f.stop}` : "not probed"})`,
    );
  }
  return failures.length > 0 ? err({ reason: "self-test-failed", failures }) : ok(checks);
}

/**
 * Runs the isolation probes; resolves ok only if every check passed. The first must show an
 * unprivileged uid with no capabilities, its own pid namespace, a read-only system and workspace,
 * no route to the host's loopback or the internet, no host files, a cleared environment and the
 * configured process cap; then Python must start and import pytest from its read-only tools mount;
 * a third probe proves the disk caps `computeScratchCaps` gives (validateScratchProbe).
 */
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

    const writableDir = mkdtempSync(`${opts.scratchDir}-writable-`);
    const scratchLimits = { ...limits, addressSpaceMb: opts.cgroups ? null : 1024 };
    const caps = computeScratchCaps(scratchLimits, 1);
    try {
      const disk = await runSandboxed({
        bwrapBin: opts.bwrapBin,
        hostUid: opts.hostUid,
        argv: [opts.paths.pythonBin, "-I", "-B", "-c", SCRATCH_PROBE, String(2 * caps.budgetBytes)],
        env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
        cwd: "/work",
        readOnlyMounts: [{ src: opts.scratchDir, dest: "/work" }],
        writableMounts: [{ src: writableDir, dest: PROBE_WRITABLE }],
        limits: scratchLimits,
        cgroups: opts.cgroups,
        name: `self-test-disk-${process.pid}-${Date.now()}`,
      });
      const diskLine = disk.channel.split("\n").find((l) => l.includes('"scratch"'));
      if (!disk.started || !diskLine) {
        failures.push(
          `disk-cap probe reported nothing (${disk.started ? `exit ${disk.exitCode}` : disk.startError}): ${disk.stderr.slice(0, 300)}`,
        );
      } else {
        const proven = validateScratchProbe(JSON.parse(diskLine) as ScratchProbe, caps);
        if (proven.ok) checks.push(...proven.value);
        else failures.push(...proven.error.failures);
      }
    } finally {
      rmdirSync(writableDir);
    }
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
