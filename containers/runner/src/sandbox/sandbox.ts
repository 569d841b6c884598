/**
 * @module runner/sandbox/sandbox
 * Runs one command inside bubblewrap. The launch chain, all by absolute path, is
 *   sh (joins the per-sandbox cgroups) → prlimit (rlimits) → setpriv (drops to the run's own
 *   unprivileged host uid) → bwrap (new user, pid, net, ipc, uts and cgroup namespaces; read-only
 *   system; fresh tmpfs /tmp; cleared environment) → the command.
 * Invariants: the command never runs outside bwrap (there is no fallback path); a sandbox that
 * did not report its child pid on --info-fd never started, which is an infrastructure error,
 * not a verdict; the wall-clock limit kills the whole tree (process group, cgroup, and the pid
 * namespace dies with bwrap); output beyond the cap is dropped and ends the process; results
 * come only from fd 3, a pipe the host owns, never from files the sandbox wrote.
 */
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { openRunCgroup, type CgroupSupport, type RunCgroup } from "./cgroup.ts";

/** A bind mount into the sandbox. Sources are host paths the host created itself. */
export interface SandboxMount {
  src: string;
  dest: string;
}

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
  limits: SandboxLimits;
  cgroups: CgroupSupport | null;
  /** Label for this sandbox in logs; the cgroup is named after `hostUid` and this process. */
  name: string;
  /** Written to the sandbox's stdin, then closed. */
  stdin?: string;
  /** Called with the host pid of the sandbox's first process once bwrap reports it. */
  onStarted?: (hostPid: number) => void;
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

const SH = "/bin/sh";
const PRLIMIT = "/usr/bin/prlimit";
const SETPRIV = "/usr/bin/setpriv";
const SANDBOX_UID = 65534;
const CHANNEL_CAP = 4 * 1024 * 1024;
const MIB = 1024 * 1024;

/** Builds the bwrap argument list (exported for tests and the self-test). */
export function buildBwrapArgs(spec: SandboxSpec): string[] {
  const { limits } = spec;
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
    "--dev",
    "/dev",
    "--size",
    String(limits.maxFileSizeMb * MIB),
    "--tmpfs",
    "/tmp",
  ];
  for (const m of spec.readOnlyMounts) args.push("--ro-bind", m.src, m.dest);
  for (const [k, v] of Object.entries(spec.env)) args.push("--setenv", k, v);
  args.push("--chdir", spec.cwd, "--info-fd", "4", "--", ...spec.argv);
  return args;
}

function buildPrlimitArgs(limits: SandboxLimits): string[] {
  const l = (name: string, v: number) => `--${name}=${v}:${v}`;
  const out = [
    l("nproc", limits.maxProcesses),
    l("nofile", limits.maxOpenFiles),
    l("fsize", limits.maxFileSizeMb * MIB),
    l("cpu", limits.cpuSeconds),
    l("core", 0),
  ];
  if (limits.addressSpaceMb !== null) out.push(l("as", limits.addressSpaceMb * MIB));
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

/**
 * Runs `spec` in the sandbox and resolves when the whole tree is gone. Never rejects for
 * anything the sandboxed code does; a sandbox that cannot start resolves with `started: false`.
 */
export async function runSandboxed(spec: SandboxSpec): Promise<SandboxOutcome> {
  const t0 = performance.now();
  let cgroup: RunCgroup | null = null;
  const fail = (startError: string): SandboxOutcome => ({
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
  });
  if (spec.cgroups) {
    try {
      cgroup = await openRunCgroup(spec.cgroups, `uid-${spec.hostUid}-${process.pid}`, {
        memoryBytes: spec.limits.memoryMb * MIB,
        maxProcesses: spec.limits.maxProcesses,
      });
    } catch (e) {
      return fail(`cannot create cgroup: ${(e as Error).message}`);
    }
  }
  try {
    return await launch(spec, cgroup, t0);
  } finally {
    await cgroup?.release();
  }
}

function launch(spec: SandboxSpec, cgroup: RunCgroup | null, t0: number): Promise<SandboxOutcome> {
  const join =
    'while [ "$1" != "--" ]; do echo $$ > "$1" || exit 97; shift; done; shift; exec "$@"';
  const argv = [
    "-c",
    join,
    "sh",
    ...(cgroup?.procsFiles ?? []),
    "--",
    PRLIMIT,
    ...buildPrlimitArgs(spec.limits),
    "--",
    SETPRIV,
    `--reuid=${spec.hostUid}`,
    `--regid=${spec.hostUid}`,
    "--clear-groups",
    "--no-new-privs",
    "--",
    spec.bwrapBin,
    ...buildBwrapArgs(spec),
  ];
  return new Promise((resolve) => {
    const child = spawn(SH, argv, {
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
      detached: true,
    });
    let timedOut = false;
    let outputLimited = false;
    let infoSeen = "";
    let finished = false;
    let sandboxPid: number | null = null;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // group already gone
      }
    };
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
    const [, outS, errS, chanS, infoS] = child.stdio as unknown as [
      unknown,
      Readable,
      Readable,
      Readable,
      Readable,
    ];
    const readOut = capture(outS, spec.limits.maxOutputBytes, onOverflow);
    const readErr = capture(errS, spec.limits.maxOutputBytes, onOverflow);
    const readChan = capture(chanS, CHANNEL_CAP, () => undefined);
    infoS.on("data", (c: Buffer) => {
      const before = /"child-pid"\s*:\s*(\d+)/.test(infoSeen);
      if (infoSeen.length < 4096) infoSeen += c.toString("utf8");
      const m = /"child-pid"\s*:\s*(\d+)/.exec(infoSeen);
      if (!before && m) {
        sandboxPid = Number(m[1]);
        spec.onStarted?.(sandboxPid);
      }
    });
    infoS.on("error", () => undefined);
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(spec.stdin ?? "");
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, spec.limits.wallMs);
    // If a stray descriptor keeps the pipes open after the tree is killed, stop waiting.
    let hardStop: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(hardStop);
      killGroup();
      const started = /"child-pid"\s*:\s*\d+/.test(infoSeen);
      resolve({
        started,
        startError: started ? "" : (spawnError ?? readErr().slice(0, 2000)),
        exitCode: code,
        signal,
        timedOut,
        outputLimited,
        oomKilled: cgroup?.readOomKilled() ?? false,
        stdout: readOut(),
        stderr: readErr(),
        channel: readChan(),
        durationMs: performance.now() - t0,
      });
    };
    child.on("error", (e) => finish(null, null, `spawn failed: ${e.message}`));
    child.on("exit", (code, signal) => {
      // bwrap has exited, and its namespace with it; sweep the group for pre-sandbox stragglers.
      killGroup();
      hardStop = setTimeout(() => finish(code, signal), 2000);
      child.on("close", () => finish(code, signal));
    });
  });
}
