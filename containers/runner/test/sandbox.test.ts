/**
 * The sandbox launch path: sandboxes of one uid are forked by one long-lived launcher that lives
 * in the uid's cgroups, so they are born there; the launcher survives the sweeps between
 * sandboxes; a launcher that dies takes its in-flight sandbox with it, which is reported as
 * killed, and the next sandbox gets a new launcher. Disk caps: / and /dev are read-only, and
 * /tmp, /dev/shm and writable mounts stop with ENOSPC at caps within a quarter of the memory
 * limit. Only our own small probes run here, and only through the sandbox.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunnerEnvironment } from "../src/job.ts";
import { resolveLauncherPid } from "../src/sandbox/launcher.ts";
import {
  buildBwrapArgs,
  computeScratchCaps,
  runSandboxed,
  scratchMountOptions,
  type SandboxControl,
  type SandboxLimits,
  type SandboxSpec,
} from "../src/sandbox/sandbox.ts";
import {
  listScratchMounts,
  mountScratchDir,
  sweepScratchMounts,
  TMPFS_MAGIC,
  unmountScratchDir,
} from "../src/sandbox/scratch-mount.ts";
import { validateScratchProbe, type ScratchProbe } from "../src/sandbox/self-test.ts";
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

const LIMITS: SandboxLimits = {
  memoryMb: 256,
  cpuSeconds: 10,
  maxProcesses: 32,
  maxOpenFiles: 64,
  maxFileSizeMb: 8,
  maxOutputBytes: 65536,
  wallMs: 10_000,
  addressSpaceMb: null,
};

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
    limits: { ...LIMITS, addressSpaceMb: environment.cgroups ? null : 4096 },
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
    // The probe waits for a line on stdin, sent once /proc has been read: a process that has
    // already ended reports `PPid: 0`, so reading its ancestry after exit would race.
    const probe =
      "process.stdin.once('data', () => { require('fs').writeSync(3, 'hello\\n');" +
      " process.exitCode = 7; process.stdin.destroy(); })";
    for (let i = 0; i < 2; i += 1) {
      let release: SandboxControl | undefined;
      const o = await runSandboxed(
        nodeSpec(probe, {
          stdin: true,
          onControl: (control) => (release = control),
          onStarted: (pid) => {
            // bwrap is the sandbox's parent; the launcher is bwrap's parent.
            launchers.push(parentOf(parentOf(pid)));
            seen.push({
              cgroup: readFileSync(`/proc/${pid}/cgroup`, "utf8"),
              oomAdj: readFileSync(`/proc/${pid}/oom_score_adj`, "utf8").trim(),
            });
            release?.write("go\n");
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

const MIB = 1024 * 1024;

/**
 * Node code that writes 1 MiB files into each folder until a write fails (or 64 MiB), after
 * trying one byte in / and /dev; prints the errno codes as JSON on fd 3.
 */
const FILL_PROBE = `
const fs = require("fs");
const attempt = (p) => { try { fs.writeFileSync(p, "x"); return "written"; } catch (e) { return e.code; } };
const fill = (d) => {
  let bytes = 0;
  const chunk = Buffer.alloc(65536);
  try {
    for (let i = 0; i < 64; i += 1) {
      const fd = fs.openSync(d + "/fill-" + i, "wx");
      try { for (let j = 0; j < 16; j += 1) bytes += fs.writeSync(fd, chunk); } finally { fs.closeSync(fd); }
    }
    return { bytes, stop: "limit" };
  } catch (e) { return { bytes, stop: e.code }; }
};
const dirs = JSON.parse(process.argv[1]);
fs.writeSync(3, JSON.stringify({
  root: attempt("/planted"), dev: attempt("/dev/planted"), devNull: attempt("/dev/null"),
  fills: Object.fromEntries(dirs.map((d) => [d, fill(d)])),
}) + "\\n");
`;

function fillSpec(dirs: string[], extra: Partial<SandboxSpec> = {}): SandboxSpec {
  const base = nodeSpec(FILL_PROBE, extra);
  return { ...base, argv: [...base.argv, JSON.stringify(dirs)] };
}

describe("sandbox disk caps", () => {
  const limits = LIMITS;

  it("keeps the caps of /tmp, /dev/shm and writable mounts within a quarter of the memory limit", () => {
    for (const memoryMb of [32, 64, 256, 512, 1024, 8192])
      for (const maxFileSizeMb of [1, 8, 64, 1024])
        for (const writable of [0, 1, 2]) {
          const caps = computeScratchCaps({ ...limits, memoryMb, maxFileSizeMb }, writable);
          expect(caps.totalBytes).toBe(
            caps.tmpBytes + caps.shmBytes + writable * caps.writableBytes,
          );
          expect(caps.totalBytes).toBeLessThanOrEqual(caps.budgetBytes);
          expect(caps.budgetBytes).toBeLessThanOrEqual((memoryMb / 4) * MIB);
          expect(caps.tmpBytes).toBeLessThanOrEqual(maxFileSizeMb * MIB);
          expect(caps.shmBytes).toBeGreaterThanOrEqual(MIB);
        }
    const defaults = computeScratchCaps({ ...limits, memoryMb: 1024, maxFileSizeMb: 64 }, 1);
    expect([defaults.tmpBytes, defaults.shmBytes, defaults.writableBytes]).toEqual([
      64 * MIB,
      32 * MIB,
      MIB,
    ]);
  });

  it("mounts / and /dev read-only after every other mount", () => {
    const args = buildBwrapArgs({
      ...nodeSpec("0"),
      writableMounts: [{ src: "/host/chan", dest: "/chan" }],
    });
    const caps = computeScratchCaps(limits, 1);
    const at = (...seq: string[]) =>
      args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at("--size", String(caps.shmBytes), "--tmpfs", "/dev/shm")).toBeGreaterThan(
      at("--dev", "/dev"),
    );
    expect(at("--size", String(caps.tmpBytes), "--tmpfs", "/tmp")).toBeGreaterThan(0);
    const remount = at("--remount-ro", "/dev", "--remount-ro", "/");
    expect(remount).toBeGreaterThan(at("--bind", "/host/chan", "/chan"));
    for (const op of ["--bind", "--ro-bind", "--tmpfs", "--dev", "--proc", "--symlink"])
      expect(args.lastIndexOf(op)).toBeLessThan(remount);
  });

  it("gives a run-held /tmp and /dev/shm their own share, mounted over bwrap's, without shrinking /tmp", () => {
    const chan = { src: "/host/chan", dest: "/chan" };
    const held = [chan, { src: "/host/tmp", dest: "/tmp" }, { src: "/host/shm", dest: "/dev/shm" }];
    const args = buildBwrapArgs({ ...nodeSpec("0"), writableMounts: held });
    const caps = computeScratchCaps(limits, 1);
    const at = (...seq: string[]) =>
      args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at("--size", String(caps.tmpBytes), "--tmpfs", "/tmp")).toBeGreaterThan(0);
    expect(at("--bind", "/host/tmp", "/tmp")).toBeGreaterThan(at("--tmpfs", "/tmp"));
    expect(scratchMountOptions("/tmp", caps, 1).capBytes).toBe(caps.tmpBytes);
    expect(scratchMountOptions("/dev/shm", caps, 1).capBytes).toBe(caps.shmBytes);
    expect(scratchMountOptions("/chan", caps, 1)).toEqual({
      capBytes: caps.writableBytes,
      maxInodes: caps.writableInodes,
      uid: 1,
    });
  });

  it("refuses writes to / and /dev with EROFS and stops /tmp and /dev/shm at their caps", async () => {
    const o = await runSandboxed(fillSpec(["/tmp", "/dev/shm"]));
    expect(o.started).toBe(true);
    const p = JSON.parse(o.channel) as ScratchProbe;
    expect(p.root).toBe("EROFS");
    expect(p.dev).toBe("EROFS");
    expect(p.devNull).toBe("written");
    const caps = computeScratchCaps(limits, 0);
    expect(p.fills["/tmp"]).toEqual({ bytes: caps.tmpBytes, stop: "ENOSPC" });
    expect(p.fills["/dev/shm"]).toEqual({ bytes: caps.shmBytes, stop: "ENOSPC" });
  }, 60_000);

  it("backs a writable mount with a capped tmpfs for the sandbox's life only", async () => {
    const chan = path.join(environment.config.WORK_DIR, "chan-capped");
    mkdirSync(chan, { mode: 0o755 });
    const hostFs = statfsSync(chan).type;
    let during = 0;
    const o = await runSandboxed(
      fillSpec(["/chan"], {
        writableMounts: [{ src: chan, dest: "/chan" }],
        onStarted: () => (during = statfsSync(chan).type),
      }),
    );
    expect(o.started).toBe(true);
    const p = JSON.parse(o.channel) as ScratchProbe;
    expect(p.fills["/chan"]).toEqual({ bytes: MIB, stop: "ENOSPC" });
    expect(during).toBe(TMPFS_MAGIC);
    // Unmounted once the sandbox ended: nothing it wrote is left on the host.
    expect(statfsSync(chan).type).toBe(hostFs);
    expect(readdirSync(chan)).toEqual([]);
  }, 60_000);

  it("uses a writable folder the run capped for longer, and leaves it mounted", async () => {
    const chan = path.join(environment.config.WORK_DIR, "chan-run");
    mkdirSync(chan, { mode: 0o755 });
    const caps = computeScratchCaps(limits, 1);
    const mounted = await mountScratchDir(chan, {
      capBytes: caps.writableBytes,
      maxInodes: caps.writableInodes,
      uid,
    });
    expect(mounted.ok).toBe(true);
    try {
      const spec = fillSpec(["/chan"], { writableMounts: [{ src: chan, dest: "/chan" }] });
      const o = await runSandboxed(spec);
      expect((JSON.parse(o.channel) as ScratchProbe).fills["/chan"]).toEqual({
        bytes: MIB,
        stop: "ENOSPC",
      });
      expect(statfsSync(chan).type).toBe(TMPFS_MAGIC);
      // What the sandbox wrote outlives it, for the run (the subject's sockets across restarts).
      expect(readdirSync(chan)).toContain("fill-0");
    } finally {
      await unmountScratchDir(chan);
    }
    expect(readdirSync(chan)).toEqual([]);
  }, 60_000);

  it("does not start a sandbox whose writable mount is larger than the cap", async () => {
    const chan = path.join(environment.config.WORK_DIR, "chan-too-big");
    mkdirSync(chan, { mode: 0o755 });
    const mounted = await mountScratchDir(chan, { capBytes: 4 * MIB, maxInodes: 1024, uid });
    expect(mounted.ok).toBe(true);
    try {
      const o = await runSandboxed(
        nodeSpec("0", { writableMounts: [{ src: chan, dest: "/chan" }] }),
      );
      expect(o.started).toBe(false);
      expect(o.startError).toContain("cap-not-applied");
    } finally {
      await unmountScratchDir(chan);
    }
  }, 60_000);

  it("sweeps the scratch mounts a killed runner left, so its run folder can be removed", async () => {
    const runs = path.join(environment.config.WORK_DIR, "killed-runner", "runs");
    const neighbour = path.join(environment.config.WORK_DIR, "killed-runner-2", "chan");
    const chans = [path.join(runs, "a", "chan"), path.join(runs, "b", "chan"), neighbour];
    for (const c of chans) {
      mkdirSync(c, { recursive: true, mode: 0o755 });
      // As the killed process left them: mounted outside this process's bookkeeping.
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "bouts-scratch", c]);
    }
    try {
      expect(() => rmSync(runs, { recursive: true, force: true })).toThrow(/EBUSY/);
      expect(listScratchMounts(runs)).toEqual(chans.slice(0, 2));
      expect(await sweepScratchMounts(runs)).toBe(2);
      rmSync(runs, { recursive: true, force: true });
      expect(existsSync(runs)).toBe(false);
      expect(listScratchMounts(neighbour)).toEqual([neighbour]);
    } finally {
      await sweepScratchMounts(path.dirname(neighbour));
    }
  }, 60_000);

  it("reads scratch mounts from the mount table with escaped paths, and only its own", () => {
    const table = path.join(environment.config.WORK_DIR, "mounts-table");
    writeFileSync(
      table,
      [
        "bouts-scratch /w/runs/x\\040y/chan tmpfs rw,nosuid 0 0",
        "bouts-scratch /w/runs/z/chan tmpfs rw 0 0",
        "tmpfs /w/runs/other tmpfs rw 0 0",
        "bouts-scratch /w/runs-old/chan tmpfs rw 0 0",
        "bouts-scratch /w/runs/fake ext4 rw 0 0",
        "",
      ].join("\n"),
    );
    expect(listScratchMounts("/w/runs", table)).toEqual(["/w/runs/x y/chan", "/w/runs/z/chan"]);
    expect(listScratchMounts("/w/runs", path.join(table, "missing"))).toEqual([]);
  });

  it("does not start a sandbox whose writable folder is not empty", async () => {
    const chan = path.join(environment.config.WORK_DIR, "chan-not-empty");
    mkdirSync(chan, { mode: 0o755 });
    writeFileSync(path.join(chan, "host-file"), "x");
    const o = await runSandboxed(nodeSpec("0", { writableMounts: [{ src: chan, dest: "/chan" }] }));
    expect(o.started).toBe(false);
    expect(o.startError).toContain("not-an-empty-folder");
  }, 60_000);
});

describe("disk-cap self-test check", () => {
  const caps = computeScratchCaps(LIMITS, 1);
  const held: ScratchProbe = {
    root: "EROFS",
    dev: "EROFS",
    devNull: "written",
    fills: {
      "/tmp": { bytes: caps.tmpBytes, stop: "ENOSPC" },
      "/dev/shm": { bytes: caps.shmBytes, stop: "ENOSPC" },
      "/chan": { bytes: caps.writableBytes, stop: "ENOSPC" },
    },
  };

  it("passes a probe that saw every cap hold", () => {
    const r = validateScratchProbe(held, caps);
    expect(r.ok).toBe(true);
  });

  it("fails a probe that wrote to the root or past a cap, naming each", () => {
    const r = validateScratchProbe(
      {
        ...held,
        root: "written",
        fills: {
          ...held.fills,
          "/dev/shm": { bytes: 64 * MIB, stop: "limit" },
          "/chan": { bytes: 0, stop: "EACCES" },
        },
      },
      caps,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.reason).toBe("self-test-failed");
    expect(r.error.failures).toHaveLength(3);
    expect(r.error.failures.join("\n")).toMatch(/root is read-only[\s\S]*\/dev\/shm[\s\S]*\/chan/);
  });
});
