/**
 * @module runner/sandbox/uid-pool
 * Hands each concurrent run its own pair of unprivileged host uids (base + 2 × slot for the
 * subject, the next for its trusted test processes). A distinct uid per process kind and run
 * is what makes RLIMIT_NPROC a per-run process cap (the kernel counts processes per uid) and
 * stops one run from signalling another's processes. Invariant: a slot is held by at most one
 * run; waiters are served first-come first-served.
 */

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

  constructor(base: number, size: number) {
    this.#base = base;
    this.#free = Array.from({ length: size }, (_, i) => i);
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
