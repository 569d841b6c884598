/**
 * @module runner/sandbox/sandbox
 * Runs one command inside bubblewrap: the uid's launcher → fork (rlimits, the run's unprivileged
 * uid) → bwrap → the command, all by absolute path (docs/runner.md, "Isolation"). Invariants: the
 * command never runs outside bwrap (no fallback path); no child pid on --info-fd means it never
 * started (an infrastructure error); the wall limit and the output cap kill the whole tree;
 * results come only from fd 3, a host pipe; every writable place is a capped tmpfs.
 */
import { constants, openSync } from "node:fs";
import { Socket } from "node:net";
import { constants as osConstants } from "node:os";
import type { Readable } from "node:stream";
import { openRunCgroup, type CgroupSupport, type RunCgroup } from "./cgroup.ts";
import {
  acquireLauncher,
  resolveLauncherPid,
  type LaunchExit,
  type SandboxLauncher,
} from "./launcher.ts";
import { openScratchDir } from "./scratch-mount.ts";

/** A bind mount into the sandbox. Sources are host paths the host created itself. */
export interface SandboxMount {
  src: string;
  dest: string;
  /**
   * A writable mount's own cap, in bytes, instead of the 1 MiB of a socket folder (an install's
   * output folder); it is not drawn from the memory limit's budget.
   */
  capBytes?: number;
}

/**
 * Where the run may mount its own capped tmpfs in place of bwrap's, so the host can watch how
 * full it gets (the subject's /tmp and /dev/shm): the cap is then `computeScratchCaps`'s.
 */
export const SCRATCH_DESTS = ["/tmp", "/dev/shm"] as const;

/** Resource limits of one sandboxed process tree. */
export interface SandboxLimits {
  memoryMb: number;
  cpuSeconds: number;
  maxProcesses: number;
  maxOpenFiles: number;
  maxFileSizeMb: number;
  maxOutputBytes: number;
  wallMs: number;
  /** Set RLIMIT_AS to this many MiB (used when no memory cgroup is available). */
  addressSpaceMb: number | null;
}

/** What to run and how. */
export interface SandboxSpec {
  bwrapBin: string;
  /** Host uid (and gid) the sandbox runs as; unique per concurrent run. */
  hostUid: number;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  readOnlyMounts: SandboxMount[];
  /**
   * Read-write mounts (the subject's /chan folder). Each source is either a tmpfs the caller
   * mounted for longer with `mountScratchDir` (at most `WRITABLE_MOUNT_CAP_BYTES` and
   * `WRITABLE_MOUNT_INODES`, proven with statfs) or an empty host folder, on which the host
   * mounts a capped tmpfs for this sandbox's life only; anything else does not start.
   */
  writableMounts?: SandboxMount[];
  limits: SandboxLimits;
  cgroups: CgroupSupport | null;
  /** Label for this sandbox in logs; the cgroup is named after `hostUid` and this process. */
  name: string;
  /** Called with the host pid of the sandbox's first process once bwrap reports it. */
  onStarted?: (hostPid: number) => void;
  /**
   * Streams fd 3 to this callback as it arrives instead of capturing it (the subject protocol);
   * `channel` in the outcome is then empty.
   */
  onChannel?: (chunk: Buffer) => void;
  /** Gives the sandbox a stdin pipe; `onControl` receives the way to write to it and to kill. */
  stdin?: boolean;
  onControl?: (control: SandboxControl) => void;
}

/** Live handle on a running sandbox. */
export interface SandboxControl {
  /** Writes to the sandbox's stdin (only with `stdin: true`); false once it is closed. */
  write(data: string): boolean;
  /** Kills the whole tree now; the outcome still resolves as usual. */
  kill(): void;
}

/** Everything observed about one sandboxed process tree. */
export interface SandboxOutcome {
  started: boolean;
  /** Why the sandbox did not start (only when `started` is false). */
  startError: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  outputLimited: boolean;
  oomKilled: boolean;
  stdout: string;
  stderr: string;
  /** Bytes the harness wrote on fd 3. */
  channel: string;
  durationMs: number;
}

const SIGNAL_NAMES = new Map(Object.entries(osConstants.signals).map(([n, v]) => [v, n]));
const SANDBOX_UID = 65534;
const CHANNEL_CAP = 4 * 1024 * 1024;
const MIB = 1024 * 1024;
/** Each writable mount (a socket folder): 1 MiB and 1024 inodes. */
const WRITABLE_MOUNT_CAP_MB = 1;
export const WRITABLE_MOUNT_CAP_BYTES = WRITABLE_MOUNT_CAP_MB * MIB;
export const WRITABLE_MOUNT_INODES = 1024;

/** Size caps of a sandbox's writable file systems, in bytes. */
export interface ScratchCaps {
  tmpBytes: number;
  shmBytes: number;
  /** Each writable mount's cap. */
  writableBytes: number;
  writableInodes: number;
  /** The sum of all caps; at most `budgetBytes`. */
  totalBytes: number;
  /** A quarter of the memory limit (at least 3 MiB): what the caps may add up to. */
  budgetBytes: number;
}

/**
 * Splits a quarter of the memory limit between /dev/shm (an eighth of it, at most one file's
 * size), the writable mounts (1 MiB each) and /tmp (the rest, at most one file's size), at
 * least 1 MiB each. tmpfs pages count against the writer's memory cgroup where there is one;
 * without one the caps are all that bounds them, hence the fixed share: a sandbox holds at most
 * 1.25× its memory limit, and filling every file system leaves it three quarters of its memory.
 * A full one is ENOSPC for the writer, never host memory or disk.
 */
export function computeScratchCaps(
  limits: Pick<SandboxLimits, "memoryMb" | "maxFileSizeMb">,
  writableMounts: number,
): ScratchCaps {
  const budgetMb = Math.max(2 + writableMounts, Math.floor(limits.memoryMb / 4));
  const writableMb = WRITABLE_MOUNT_CAP_MB * writableMounts;
  const shmMb = Math.max(1, Math.min(limits.maxFileSizeMb, Math.floor(budgetMb / 8)));
  const tmpMb = Math.max(1, Math.min(limits.maxFileSizeMb, budgetMb - shmMb - writableMb));
  return {
    tmpBytes: tmpMb * MIB,
    shmBytes: shmMb * MIB,
    writableBytes: WRITABLE_MOUNT_CAP_BYTES,
    writableInodes: WRITABLE_MOUNT_INODES,
    totalBytes: (tmpMb + shmMb + writableMb) * MIB,
    budgetBytes: budgetMb * MIB,
  };
}

/**
 * Writable mounts other than a run-mounted /tmp or /dev/shm (those replace bwrap's own) and
 * other than those with a cap of their own.
 */
function countSocketMounts(mounts: readonly SandboxMount[]): number {
  return mounts.filter(
    (m) => !(SCRATCH_DESTS as readonly string[]).includes(m.dest) && m.capBytes === undefined,
  ).length;
}

/**
 * The cap a writable mount at `dest` is held to: /tmp and /dev/shm keep their share of the
 * budget (one inode per page at most), a mount with a cap of its own that cap (one inode per
 * KiB, at least 4096: an npm tree is many small files), any other writable mount 1 MiB and
 * 1024 inodes.
 */
export function scratchMountOptions(
  dest: string,
  caps: ScratchCaps,
  uid: number,
  ownCapBytes?: number,
): { capBytes: number; maxInodes: number; uid: number } {
  if (ownCapBytes !== undefined)
    return {
      capBytes: ownCapBytes,
      maxInodes: Math.max(4096, Math.floor(ownCapBytes / 1024)),
      uid,
    };
  const capBytes =
    dest === "/tmp" ? caps.tmpBytes : dest === "/dev/shm" ? caps.shmBytes : caps.writableBytes;
  const maxInodes =
    capBytes === caps.writableBytes
      ? caps.writableInodes
      : Math.max(caps.writableInodes, capBytes / 4096);
  return { capBytes, maxInodes, uid };
}

/** Builds the bwrap argument list (exported for tests and the self-test). */
export function buildBwrapArgs(spec: SandboxSpec): string[] {
  const caps = computeScratchCaps(spec.limits, countSocketMounts(spec.writableMounts ?? []));
  const args = [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--disable-userns",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--hostname",
    "sandbox",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--symlink",
    "usr/sbin",
    "/sbin",
    "--proc",
    "/proc",
    // bwrap's /dev and / are unbounded tmpfs: both become read-only once everything is mounted,
    // and the two places meant for writing get capped tmpfs of their own.
    "--dev",
    "/dev",
    "--size",
    String(caps.shmBytes),
    "--tmpfs",
    "/dev/shm",
    "--size",
    String(caps.tmpBytes),
    "--tmpfs",
    "/tmp",
  ];
  for (const m of spec.readOnlyMounts) args.push("--ro-bind", m.src, m.dest);
  // Sources are capped tmpfs the host mounted (runSandboxed), never plain host folders.
  for (const m of spec.writableMounts ?? []) args.push("--bind", m.src, m.dest);
  // Mount points are created in / and /dev, so these come after every mount.
  args.push("--remount-ro", "/dev", "--remount-ro", "/");
  for (const [k, v] of Object.entries(spec.env)) args.push("--setenv", k, v);
  args.push("--chdir", spec.cwd, "--info-fd", "4", "--", ...spec.argv);
  return args;
}

function buildRlimits(limits: SandboxLimits): [string, number][] {
  const out: [string, number][] = [
    ["RLIMIT_NPROC", limits.maxProcesses],
    ["RLIMIT_NOFILE", limits.maxOpenFiles],
    ["RLIMIT_FSIZE", limits.maxFileSizeMb * MIB],
    ["RLIMIT_CPU", limits.cpuSeconds],
    ["RLIMIT_CORE", 0],
  ];
  if (limits.addressSpaceMb !== null) out.push(["RLIMIT_AS", limits.addressSpaceMb * MIB]);
  return out;
}

/** Collects a stream up to `cap` bytes; calls `onOverflow` once when the cap is passed. */
function capture(stream: Readable, cap: number, onOverflow: () => void): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  stream.on("data", (chunk: Buffer) => {
    if (size < cap) chunks.push(chunk.subarray(0, cap - size));
    size += chunk.length;
    if (size > cap && !overflowed) {
      overflowed = true;
      onOverflow();
    }
  });
  stream.on("error", () => undefined);
  return () => Buffer.concat(chunks).toString("utf8");
}

function notStarted(startError: string, t0: number): SandboxOutcome {
  return {
    started: false,
    startError,
    exitCode: null,
    signal: null,
    timedOut: false,
    outputLimited: false,
    oomKilled: false,
    stdout: "",
    stderr: "",
    channel: "",
    durationMs: performance.now() - t0,
  };
}

/** Opens one of the launcher's pipe ends through /proc as a non-blocking stream. */
function openLauncherPipe(launcherPid: number, fd: number, write = false): Socket {
  const own = openSync(
    `/proc/${launcherPid}/fd/${fd}`,
    (write ? constants.O_WRONLY : constants.O_RDONLY) | constants.O_NONBLOCK,
  );
  return new Socket({ fd: own, readable: !write, writable: write });
}

/**
 * Runs `spec` in the sandbox and resolves when the whole tree is gone. Never rejects for
 * anything the sandboxed code does; a sandbox that cannot start resolves with `started: false`.
 */
export async function runSandboxed(spec: SandboxSpec): Promise<SandboxOutcome> {
  const t0 = performance.now();
  let cgroup: RunCgroup | null = null;
  const key = `uid-${spec.hostUid}-${process.pid}`;
  if (spec.cgroups) {
    try {
      cgroup = await openRunCgroup(
        spec.cgroups,
        key,
        { memoryBytes: spec.limits.memoryMb * MIB, maxProcesses: spec.limits.maxProcesses },
        () => resolveLauncherPid(key),
      );
    } catch (e) {
      return notStarted(`cannot create cgroup: ${(e as Error).message}`, t0);
    }
  }
  const writable = spec.writableMounts ?? [];
  const caps = computeScratchCaps(spec.limits, countSocketMounts(writable));
  const releases: (() => Promise<void>)[] = [];
  try {
    for (const m of writable) {
      const r = await openScratchDir(
        m.src,
        scratchMountOptions(m.dest, caps, spec.hostUid, m.capBytes),
      );
      if (!r.ok)
        return notStarted(
          `cannot cap the writable mount ${m.dest} (${r.error.reason}): ${r.error.detail}`,
          t0,
        );
      releases.push(r.value.release);
    }
    let launcher: SandboxLauncher;
    try {
      launcher = await acquireLauncher(key, cgroup?.procsFiles ?? []);
    } catch (e) {
      return notStarted(
        `cannot start the sandbox launcher: ${(e as Error).message}`.slice(0, 2000),
        t0,
      );
    }
    return await launch(spec, launcher, cgroup, t0);
  } finally {
    for (const release of releases) await release();
    await cgroup?.release();
  }
}

async function launch(
  spec: SandboxSpec,
  launcher: SandboxLauncher,
  cgroup: RunCgroup | null,
  t0: number,
): Promise<SandboxOutcome> {
  let exit: LaunchExit | null = null;
  let onExit: (e: LaunchExit) => void = (e) => {
    exit = e;
  };
  let started: { id: number; pid: number; fds: number[] };
  try {
    started = await launcher.start(
      {
        argv: [spec.bwrapBin, ...buildBwrapArgs(spec)],
        uid: spec.hostUid,
        rlimits: buildRlimits(spec.limits),
        stdin: spec.stdin === true,
      },
      (e) => onExit(e),
    );
  } catch (e) {
    return notStarted(`sandbox launch failed: ${(e as Error).message}`.slice(0, 2000), t0);
  }
  const chainPid = started.pid;
  const killGroup = () => {
    try {
      process.kill(-chainPid, "SIGKILL");
    } catch {
      // group already gone
    }
  };
  let streams: Socket[];
  let stdinS: Socket | null = null;
  try {
    streams = started.fds.slice(0, 4).map((fd) => openLauncherPipe(launcher.pid, fd));
    if (spec.stdin && started.fds[4] !== undefined)
      stdinS = openLauncherPipe(launcher.pid, started.fds[4], true);
  } catch (e) {
    killGroup();
    return notStarted(`cannot open the sandbox's pipes: ${(e as Error).message}`, t0);
  } finally {
    launcher.opened(started.id);
  }
  const [outS, errS, chanS, infoS] = streams as [Socket, Socket, Socket, Socket];
  return new Promise((resolve) => {
    let timedOut = false;
    let outputLimited = false;
    let infoSeen = "";
    let finished = false;
    let sandboxPid: number | null = null;
    let open = streams.length;
    let hardStop: NodeJS.Timeout | undefined;
    // Killing the sandbox's first process tears down its whole pid namespace, and bwrap (still
    // alive) reaps it, so nothing is orphaned. The process-group kill is the fallback for a
    // sandbox that has not started yet or does not go away.
    const killTree = () => {
      if (sandboxPid !== null) {
        try {
          process.kill(sandboxPid, "SIGKILL");
        } catch {
          // already gone
        }
        setTimeout(killGroup, 1000).unref();
      } else killGroup();
    };
    const onOverflow = () => {
      outputLimited = true;
      killTree();
    };
    const readOut = capture(outS, spec.limits.maxOutputBytes, onOverflow);
    const readErr = capture(errS, spec.limits.maxOutputBytes, onOverflow);
    const onChannel = spec.onChannel;
    let readChan: () => string = () => "";
    if (onChannel) chanS.on("data", (c: Buffer) => onChannel(c));
    else readChan = capture(chanS, CHANNEL_CAP, () => undefined);
    if (stdinS) {
      stdinS.on("error", () => undefined);
      stdinS.unref();
    }
    spec.onControl?.({
      write: (data) => {
        if (!stdinS || stdinS.destroyed || finished) return false;
        stdinS.write(data);
        return true;
      },
      kill: () => killTree(),
    });
    infoS.on("data", (c: Buffer) => {
      const before = /"child-pid"\s*:\s*(\d+)/.test(infoSeen);
      if (infoSeen.length < 4096) infoSeen += c.toString("utf8");
      const m = /"child-pid"\s*:\s*(\d+)/.exec(infoSeen);
      if (!before && m) {
        sandboxPid = Number(m[1]);
        spec.onStarted?.(sandboxPid);
      }
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, spec.limits.wallMs);
    const finish = (spawnError?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(hardStop);
      killGroup();
      for (const s of streams) s.destroy();
      stdinS?.destroy();
      const reported = /"child-pid"\s*:\s*\d+/.test(infoSeen);
      resolve({
        started: reported,
        startError: reported ? "" : (spawnError ?? readErr().slice(0, 2000)),
        exitCode: exit?.code ?? null,
        signal: exit?.signal ? (SIGNAL_NAMES.get(exit.signal) ?? `signal ${exit.signal}`) : null,
        timedOut,
        outputLimited,
        oomKilled: cgroup?.readOomKilled() ?? false,
        stdout: readOut(),
        stderr: readErr(),
        channel: readChan(),
        durationMs: performance.now() - t0,
      });
    };
    for (const s of streams) {
      s.on("close", () => {
        open -= 1;
        if (open === 0 && exit) finish();
      });
    }
    const handleExit = (e: LaunchExit) => {
      exit = e;
      // bwrap has exited, and its namespace with it; sweep the group for pre-sandbox stragglers.
      killGroup();
      if (e.launcherLost) return finish("the sandbox launcher died");
      if (open === 0) return finish();
      // If a stray descriptor keeps the pipes open after the tree is killed, stop waiting.
      hardStop = setTimeout(() => finish(), 2000);
    };
    onExit = handleExit;
    if (exit) handleExit(exit);
  });
}
