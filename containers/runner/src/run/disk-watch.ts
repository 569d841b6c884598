/**
 * @module runner/run/disk-watch
 * Watches the subject's capped scratch file systems (/tmp, /dev/shm, /chan: tmpfs mounts the
 * run holds on host folders) while it runs, and reports each one the submission filled to its
 * cap. The observation is the host's (statfs on the host side of the mount), so a submission
 * cannot forge or hide it, except by filling and emptying a mount between two looks.
 * Invariants: read-only (statfs only); a mount that cannot be read is skipped, never guessed.
 */
import { statfsSync } from "node:fs";

/** One watched mount: where the subject sees it, the host folder, and its cap. */
export interface WatchedMount {
  dest: string;
  dir: string;
  capBytes: number;
}

/** How often the mounts are looked at while the subject runs. */
export const DISK_WATCH_INTERVAL_MS = 200;
/** A mount with less free space than this (or no free inode) counts as full. */
const FULL_MARGIN_BYTES = 64 * 1024;

/** Whether the mount at `dir` is full now; null when it cannot be read. */
export function isMountFull(dir: string): boolean | null {
  try {
    const s = statfsSync(dir);
    return s.bfree * s.bsize < FULL_MARGIN_BYTES || s.ffree === 0;
  } catch {
    return null;
  }
}

/** The evidence line for a filled mount. */
export function describeFilledMount(m: WatchedMount): string {
  const mib = Math.round(m.capBytes / (1024 * 1024));
  return `disk-limit: the submission filled ${m.dest} to its cap of ${mib} MiB (writes there failed with ENOSPC)`;
}

/**
 * Starts watching `mounts`; `stop()` takes a last look, stops, and returns one evidence line
 * per mount that was ever seen full, in the order given.
 */
export function watchScratchMounts(
  mounts: readonly WatchedMount[],
  intervalMs = DISK_WATCH_INTERVAL_MS,
): { stop(): string[] } {
  const filled = new Set<WatchedMount>();
  const look = () => {
    for (const m of mounts) if (!filled.has(m) && isMountFull(m.dir)) filled.add(m);
  };
  const timer = setInterval(look, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      look();
      return mounts.filter((m) => filled.has(m)).map(describeFilledMount);
    },
  };
}
