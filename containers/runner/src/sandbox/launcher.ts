/**
 * @module runner/sandbox/launcher
 * The runner side of `launcher.py`: one long-lived root helper per host uid of this runner process
 * that joined the uid's cgroups once and forks every sandbox of that uid, so no sandbox pays a
 * cgroup migration (~13 ms on v1: docs/runner.md, "Performance"). Invariants: it never runs
 * submission code (its children exec bwrap as the run's uid); it dies with the runner; if it exits,
 * its sandboxes in flight are reported killed, so no caller waits forever.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Readable, Writable } from "node:stream";

/** What the launcher's child does before it execs `argv[0]`. */
export interface LaunchSpec {
  argv: string[];
  /** Host uid and gid to drop to. */
  uid: number;
  /** [resource name as in Python's `resource` module, e.g. "RLIMIT_NPROC", value]. */
  rlimits: [string, number][];
  /** Give the child a stdin pipe whose write end is returned as a fifth fd. */
  stdin?: boolean;
}

/** How a launched sandbox's first process ended. */
export interface LaunchExit {
  code: number | null;
  signal: number | null;
  /** True when the launcher itself died and the exit was inferred. */
  launcherLost: boolean;
}

interface Pending {
  onStarted: (pid: number, fds: number[]) => void;
  onExit: (exit: LaunchExit) => void;
  onError: (e: Error) => void;
}

const SCRIPT = path.join(import.meta.dirname, "launcher.py");
/** Any Python 3.9+ under /usr will do; the runner's own Python 3.11 is the usual one. */
const PYTHON_CANDIDATES = ["/usr/bin/python3.11", "/usr/bin/python3"];
const START_TIMEOUT_MS = 10_000;

/** One running launcher; obtain it with `acquireLauncher`. */
export class SandboxLauncher {
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly #pending = new Map<number, Pending>();
  readonly #ready: Promise<void>;
  #nextId = 1;
  #buf = "";
  #stderr = "";
  #alive = true;
  #pid = 0;

  constructor(python: string, procsFiles: string[], onGone: () => void) {
    this.#child = spawn(python, ["-I", "-S", "-B", SCRIPT, ...procsFiles], {
      env: {},
      stdio: ["pipe", "pipe", "pipe"],
    });
    let readyResolve: () => void = () => undefined;
    let readyReject: (e: Error) => void = () => undefined;
    this.#ready = new Promise<void>((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    const startTimer = setTimeout(() => {
      readyReject(new Error("sandbox launcher did not start in time"));
      this.#child.kill("SIGKILL");
    }, START_TIMEOUT_MS);
    this.#child.stderr.on("data", (c: Buffer) => {
      if (this.#stderr.length < 4000) this.#stderr += c.toString("utf8");
    });
    this.#child.stdout.on("data", (c: Buffer) => {
      this.#buf += c.toString("utf8");
      let nl: number;
      while ((nl = this.#buf.indexOf("\n")) >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        let msg: {
          ready?: number;
          id?: number;
          fds?: number[];
          pid?: number;
          exit?: number | null;
          signal?: number | null;
        };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          continue;
        }
        if (msg.ready !== undefined) {
          this.#pid = msg.ready;
          clearTimeout(startTimer);
          readyResolve();
          this.#updateRef();
          continue;
        }
        const p = this.#pending.get(msg.id ?? -1);
        if (!p) continue;
        if (msg.pid !== undefined && msg.fds) p.onStarted(msg.pid, msg.fds);
        else if ("exit" in msg) {
          this.#pending.delete(msg.id!);
          this.#updateRef();
          p.onExit({ code: msg.exit ?? null, signal: msg.signal ?? null, launcherLost: false });
        }
      }
    });
    const gone = (why: string) => {
      if (!this.#alive) return;
      this.#alive = false;
      clearTimeout(startTimer);
      onGone();
      const e = new Error(`sandbox launcher ${why}${this.#stderr ? `: ${this.#stderr}` : ""}`);
      readyReject(e);
      for (const p of this.#pending.values()) {
        p.onError(e);
        p.onExit({ code: null, signal: 9, launcherLost: true });
      }
      this.#pending.clear();
    };
    this.#child.on("error", (e) => gone(`failed: ${e.message}`));
    this.#child.on("exit", (code, signal) => gone(`exited (${signal ?? code})`));
    this.#child.stdin.on("error", () => undefined);
  }

  /** Host pid of the launcher (valid once `ready` resolved). */
  get pid(): number {
    return this.#pid;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Resolves once the launcher has joined its cgroups and listens. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  // The launcher must not keep a finished runner (a CLI, a test worker) alive: it is referenced
  // only while a sandbox is in flight.
  #updateRef(): void {
    const busy = this.#pending.size > 0;
    for (const h of [this.#child, this.#child.stdout, this.#child.stderr, this.#child.stdin]) {
      const r = h as unknown as { ref?: () => void; unref?: () => void };
      if (busy) r.ref?.();
      else r.unref?.();
    }
  }

  #send(msg: object): void {
    this.#child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  /**
   * Forks one sandbox. Resolves with its host pid (a session and group leader) and the
   * launcher's read ends of its fresh stdout, stderr, channel and info pipes, which the caller
   * opens as /proc/<launcher>/fd/<n> and then confirms with `opened`. `onExit` is called once.
   */
  start(
    spec: LaunchSpec,
    onExit: (exit: LaunchExit) => void,
  ): Promise<{ id: number; pid: number; fds: number[] }> {
    if (!this.#alive) return Promise.reject(new Error("sandbox launcher is gone"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, {
        onStarted: (pid, fds) => resolve({ id, pid, fds }),
        onError: reject,
        onExit,
      });
      this.#updateRef();
      this.#send({ op: "start", id, ...spec });
    });
  }

  /**
   * Lets the launcher close its copies of a sandbox's read ends, so the runner holds the only ones.
   */
  opened(id: number): void {
    if (this.#alive) this.#send({ op: "opened", id });
  }
}

const launchers = new Map<string, SandboxLauncher>();

/** Finds the Python that runs launchers. */
export function resolveLauncherPython(): string | null {
  return PYTHON_CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/**
 * Returns the live launcher for `key` (one per cgroup name, i.e. per uid of this runner
 * process), starting it in `procsFiles`' groups on first use or after it died.
 */
export async function acquireLauncher(key: string, procsFiles: string[]): Promise<SandboxLauncher> {
  let l = launchers.get(key);
  if (!l?.alive) {
    const python = resolveLauncherPython();
    if (!python)
      throw new Error(`no Python for the sandbox launcher (${PYTHON_CANDIDATES.join(", ")})`);
    const created: SandboxLauncher = new SandboxLauncher(python, procsFiles, () => {
      if (launchers.get(key) === created) launchers.delete(key);
    });
    l = created;
    launchers.set(key, l);
  }
  await l.ready;
  return l;
}

/** Host pid of the live launcher for `key`, if any (cgroup sweeps must spare it). */
export function resolveLauncherPid(key: string): number | null {
  const l = launchers.get(key);
  return l?.alive && l.pid > 0 ? l.pid : null;
}
