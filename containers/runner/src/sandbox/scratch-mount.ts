/**
 * @module runner/sandbox/scratch-mount
 * A sandbox's writable host folder (the subject's /chan) as a size-capped tmpfs the runner (root)
 * mounts on it: for a whole run (`mountScratchDir`) or one sandbox's life (`openScratchDir`).
 * Invariants: only an empty folder that is not a mount is mounted on (nothing on the host is
 * hidden); an existing mount is used only if statfs proves it a tmpfs within the cap; a folder
 * whose cap cannot be proven is unmounted and refused.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statfsSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { err, ok, type Result } from "@bouts/result";

/** How big a capped folder may get. */
export interface ScratchMountOptions {
  capBytes: number;
  /** Most files and folders (tmpfs inodes also cost memory outside `size`). */
  maxInodes: number;
  /** Host uid and gid that own the tmpfs root (the sandbox's uid). */
  uid: number;
}

/** Why a folder could not be capped; the sandbox then does not start. */
export type ScratchMountError =
  | { reason: "not-an-empty-folder"; dir: string; detail: string }
  | { reason: "already-mounted"; dir: string; detail: string }
  | { reason: "mount-failed"; dir: string; detail: string }
  | { reason: "cap-not-applied"; dir: string; detail: string };

/** statfs f_type of tmpfs (linux/magic.h). */
export const TMPFS_MAGIC = 0x01021994;
const MOUNT_BINS = ["/usr/bin/mount", "/bin/mount"];
const UMOUNT_BINS = ["/usr/bin/umount", "/bin/umount"];
const run = promisify(execFile);
/** Folders this process has mounted and not yet unmounted. */
const mounted = new Set<string>();

function resolveBin(candidates: string[]): string | null {
  return candidates.find((p) => existsSync(p)) ?? null;
}

/** True when `dir` is a mount point (its device differs from its parent's). */
function isMountPoint(dir: string): boolean {
  return statSync(dir).dev !== statSync(path.dirname(dir)).dev;
}

/**
 * Checks that `dir` is a tmpfs no larger than `capBytes` with at most `maxInodes` inodes
 * (what statfs reports after mounting).
 */
export function validateScratchCap(
  dir: string,
  capBytes: number,
  maxInodes: number,
): Result<void, ScratchMountError> {
  const s = statfsSync(dir);
  const size = s.blocks * s.bsize;
  if (s.type !== TMPFS_MAGIC || size > capBytes || s.files > maxInodes)
    return err({
      reason: "cap-not-applied",
      dir,
      detail: `statfs: type 0x${s.type.toString(16)}, ${size} bytes, ${s.files} inodes (want tmpfs ≤ ${capBytes} bytes, ≤ ${maxInodes} inodes)`,
    });
  return ok(undefined);
}

/**
 * Mounts a fresh capped tmpfs on the empty host folder `dir` and proves the cap. A bind of a plain
 * host folder cannot be capped (bwrap's --size applies to its own tmpfs only), and a tmpfs private
 * to one sandbox cannot be shared (the trusted test processes connect to the subject's sockets
 * there). tmpfs pages are charged to the writer's memory cgroup, so the sandbox pays for them.
 */
export async function mountScratchDir(
  dir: string,
  opts: ScratchMountOptions,
): Promise<Result<void, ScratchMountError>> {
  const abs = path.resolve(dir);
  try {
    if (!statSync(abs).isDirectory() || readdirSync(abs).length > 0)
      return err({ reason: "not-an-empty-folder", dir: abs, detail: "it holds files" });
  } catch (e) {
    return err({ reason: "not-an-empty-folder", dir: abs, detail: (e as Error).message });
  }
  if (mounted.has(abs) || isMountPoint(abs))
    return err({ reason: "already-mounted", dir: abs, detail: "something is mounted there" });
  const bin = resolveBin(MOUNT_BINS);
  if (!bin) return err({ reason: "mount-failed", dir: abs, detail: "no mount(8) under /usr" });
  const options = [
    `size=${opts.capBytes}`,
    `nr_inodes=${opts.maxInodes}`,
    "mode=0755",
    `uid=${opts.uid}`,
    `gid=${opts.uid}`,
    "nosuid",
    "nodev",
    "noexec",
  ].join(",");
  try {
    await run(bin, ["-t", "tmpfs", "-o", options, "bouts-scratch", abs], { env: {} });
  } catch (e) {
    const stderr = (e as { stderr?: string }).stderr ?? "";
    return err({
      reason: "mount-failed",
      dir: abs,
      detail: `${(e as Error).message} ${stderr}`.trim().slice(0, 500),
    });
  }
  mounted.add(abs);
  const proven = validateScratchCap(abs, opts.capBytes, opts.maxInodes);
  if (!proven.ok) await unmountScratchDir(abs);
  return proven;
}

/**
 * Detaches the tmpfs on `dir` (lazily: another sandbox may still hold a bind of it; the host's
 * view is gone at once, so the run's folder can be removed). Safe to call twice.
 */
export async function unmountScratchDir(dir: string): Promise<void> {
  const abs = path.resolve(dir);
  if (!mounted.delete(abs)) return;
  const bin = resolveBin(UMOUNT_BINS);
  if (!bin) return;
  try {
    await run(bin, ["-l", abs], { env: {} });
  } catch {
    // already gone (e.g. unmounted by hand); nothing of it is left to hide the folder
  }
}

/** The mount points of this runner's scratch tmpfs at or below `root`, deepest first. */
export function listScratchMounts(root: string, mountsTable = "/proc/self/mounts"): string[] {
  const abs = path.resolve(root);
  let table: string;
  try {
    table = readFileSync(mountsTable, "utf8");
  } catch {
    return [];
  }
  // Fields are space separated; spaces, tabs and backslashes in a path are octal escapes.
  const unescape = (f: string) =>
    f.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  return table
    .split("\n")
    .map((line) => line.split(" "))
    .filter(([source, target, type]) => source === "bouts-scratch" && type === "tmpfs" && target)
    .map(([, target]) => unescape(target!))
    .filter((t) => t === abs || t.startsWith(abs + path.sep))
    .sort((a, b) => b.length - a.length || a.localeCompare(b));
}

/**
 * Lazily unmounts every scratch tmpfs left at or below `root` by a runner that was killed
 * mid-run, so its folders can be removed; returns how many it detached.
 */
export async function sweepScratchMounts(root: string): Promise<number> {
  const bin = resolveBin(UMOUNT_BINS);
  if (!bin) return 0;
  let swept = 0;
  for (const dir of listScratchMounts(root)) {
    mounted.delete(dir);
    try {
      await run(bin, ["-l", dir], { env: {} });
      swept++;
    } catch {
      // gone meanwhile, or not ours to unmount; the removal that follows says which
    }
  }
  return swept;
}

/**
 * Makes `dir` a capped tmpfs for one sandbox: a folder that is already a mount (the run mounted
 * it with `mountScratchDir`) is proven and used as it is; a plain folder gets a fresh tmpfs that
 * `release()` lazily unmounts once the sandbox has ended.
 */
export async function openScratchDir(
  dir: string,
  opts: ScratchMountOptions,
): Promise<Result<{ release: () => Promise<void> }, ScratchMountError>> {
  const abs = path.resolve(dir);
  let isMount: boolean;
  try {
    isMount = isMountPoint(abs);
  } catch (e) {
    return err({ reason: "not-an-empty-folder", dir: abs, detail: (e as Error).message });
  }
  if (isMount) {
    const proven = validateScratchCap(abs, opts.capBytes, opts.maxInodes);
    return proven.ok ? ok({ release: () => Promise.resolve() }) : proven;
  }
  const r = await mountScratchDir(abs, opts);
  return r.ok ? ok({ release: () => unmountScratchDir(abs) }) : r;
}
