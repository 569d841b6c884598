/**
 * @module runner/sandbox/uid-pool
 * Hands each concurrent run its own pair of unprivileged host uids (base + 2 × slot for the
 * subject, the next for its trusted test processes). A distinct uid per process kind and run
 * is what makes RLIMIT_NPROC a per-run process cap (the kernel counts processes per uid) and
 * stops one run from signalling another's processes. Invariant: a slot is held by at most one
 * run; waiters are served first-come first-served.
 */

import { readdirSync, statSync } from "node:fs";

/** A held slot; call `release()` exactly once. */
export interface UidLease {
  uid: number;
  /** The slot's second uid (trusted test processes). */
  secondUid: number;
  release(): void;
}

/** A fixed pool of uids. */
export class UidPool {
  readonly #free: number[];
  readonly #waiters: ((slot: number) => void)[] = [];
  readonly #base: number;
  readonly #size: number;

  constructor(base: number, size: number) {
    this.#base = base;
    this.#size = size;
    this.#free = Array.from({ length: size }, (_, i) => i);
  }

  /** Slots held by runs now (what a stuck run would show: /healthz reports it). */
  get held(): number {
    return this.#size - this.#free.length;
  }

  /** Waits for a free slot. */
  async acquire(): Promise<UidLease> {
    const slot = this.#free.shift() ?? (await new Promise<number>((r) => this.#waiters.push(r)));
    let released = false;
    return {
      uid: this.#base + 2 * slot,
      secondUid: this.#base + 2 * slot + 1,
      release: () => {
        if (released) return;
        released = true;
        const next = this.#waiters.shift();
        if (next) next(slot);
        else this.#free.push(slot);
      },
    };
  }
}

/**
 * SIGKILLs every process still running as one of `uids` (a slot's uids belong to one run, so
 * nothing else is hit): whatever a run's sandboxes left, the slot goes back empty. Never throws.
 */
export function killTasksOf(uids: readonly number[]): number {
  let killed = 0;
  let pids: string[];
  try {
    pids = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const pid of pids) {
    const c = pid.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    try {
      if (!uids.includes(statSync(`/proc/${pid}`).uid)) continue;
      process.kill(Number(pid), "SIGKILL");
      killed += 1;
    } catch {
      // exited while we looked, or not ours to signal
    }
  }
  return killed;
}
