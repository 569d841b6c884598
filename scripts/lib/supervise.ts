/**
 * @module scripts/lib/supervise
 * Keeps one long-running child alive (`npm start` uses it for the runner): when the child exits
 * without being asked to, a loud line says so and it is started again after a backoff (doubling
 * from `initialMs` to `maxMs`, back to `initialMs` once a child has run for `resetAfterMs`).
 * Invariants: at most one child is alive at a time; before a restart the dead child's process
 * group is killed (whatever it spawned that outlived it) and `beforeRestart` runs; after
 * `stop()` nothing is started again and the current child's group gets SIGTERM. The same
 * `start` function (so the same environment: the runner's per-start secret) starts every child.
 */
import type { ChildProcess } from "node:child_process";

export interface SuperviseOptions {
  /** What the lines name ("the runner"). */
  label: string;
  /** Starts a child in its own process group (`detached`), e.g. `startChild` of local-platform. */
  start: () => ChildProcess;
  /** Where the loud lines go. */
  log: (line: string) => void;
  /** First wait before a restart (default 1 s). */
  initialMs?: number;
  /** Longest wait (default 30 s). */
  maxMs?: number;
  /** A child that ran this long resets the backoff (default 60 s). */
  resetAfterMs?: number;
  /** Runs after the dead child's group is killed, before the next start (e.g. sweep mounts). */
  beforeRestart?: () => Promise<void> | void;
  /** Called with every child started, the first one included. */
  onStart?: (child: ChildProcess, restart: number) => void;
}

export interface Supervisor {
  /** The child alive now (or the last one, while a restart waits). */
  current(): ChildProcess;
  /** How many times the child was restarted. */
  restarts(): number;
  /** Stops supervising and sends SIGTERM to the current child's process group. */
  stop(): void;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Starts the child and keeps restarting it until `stop()`. */
export function supervise(opts: SuperviseOptions): Supervisor {
  const initialMs = opts.initialMs ?? 1_000;
  const maxMs = opts.maxMs ?? 30_000;
  const resetAfterMs = opts.resetAfterMs ?? 60_000;
  let stopped = false;
  let restarts = 0;
  let nextDelay = initialMs;
  let timer: NodeJS.Timeout | null = null;
  let child: ChildProcess;

  const launch = () => {
    const started = Date.now();
    child = opts.start();
    opts.onStart?.(child, restarts);
    const self = child;
    self.on("exit", (code, signal) => {
      if (stopped) return;
      // What the dead child left behind (its sandboxes, a wrapper) goes before the next start.
      killGroup(self, "SIGKILL");
      if (Date.now() - started >= resetAfterMs) nextDelay = initialMs;
      const delay = nextDelay;
      nextDelay = Math.min(maxMs, nextDelay * 2);
      const how = signal ? `signal ${signal}` : `code ${code}`;
      opts.log(
        `!!! ${opts.label} exited (${how}); restarting it in ${(delay / 1000).toFixed(1)} s (restart ${restarts + 1})`,
      );
      timer = setTimeout(() => {
        timer = null;
        void (async () => {
          try {
            await opts.beforeRestart?.();
          } catch (e) {
            opts.log(`${opts.label}: clean-up before the restart failed: ${String(e)}`);
          }
          if (stopped) return;
          restarts++;
          launch();
        })();
      }, delay);
    });
  };
  launch();

  return {
    current: () => child,
    restarts: () => restarts,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) killGroup(child, "SIGTERM");
    },
  };
}
