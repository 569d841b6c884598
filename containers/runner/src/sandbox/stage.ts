/**
 * @module runner/sandbox/stage
 * What the sandboxes mount from the host, staged under the work dir so that a sandbox's
 * /proc/self/mountinfo (which shows each bind mount's source path) names only the work dir's
 * `stage/` folder, never the runner's checkout or install path: the harness is copied, the
 * Node binary and the pytest packages are hard-linked (no copy of their bytes; where a link is not
 * possible, as across file systems, the original path is used, as production's standard paths
 * are). Invariants: the stage is rebuilt at every start from the pristine sources (nothing a
 * sandbox could have touched survives: every mount of it is read-only anyway); a failure to
 * stage an item leaves that item at its original path, never unmounted or missing.
 */
import {
  cpSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import path from "node:path";
import type { RuntimePaths } from "./runtime.ts";

/**
 * Stages `paths` under `<workDir>/stage/<pid>` (one folder per runner process, so two processes
 * sharing a work dir never pull one another's mounts away; folders of processes that are gone
 * are removed) and returns the paths the sandboxes mount.
 */
export function stageRuntimePaths(workDir: string, paths: RuntimePaths): RuntimePaths {
  const root = path.join(workDir, "stage");
  mkdirSync(root, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(root))
    if (!/^\d+$/.test(name) || !isAlive(Number(name)) || Number(name) === process.pid)
      rmSync(path.join(root, name), { recursive: true, force: true });
  const stage = path.join(root, String(process.pid));
  mkdirSync(stage, { recursive: true, mode: 0o755 });
  const harnessDir = attempt(() => {
    const dest = path.join(stage, "harness");
    cpSync(paths.harnessDir, dest, { recursive: true, dereference: false });
    return dest;
  }, paths.harnessDir);
  const nodeBin = attempt(() => {
    const dest = path.join(stage, "bin", "node");
    mkdirSync(path.dirname(dest), { recursive: true, mode: 0o755 });
    linkSync(paths.nodeBin, dest);
    return dest;
  }, paths.nodeBin);
  const pythonTools = attempt(() => {
    const dest = path.join(stage, "pytools");
    linkTree(paths.pythonTools, dest);
    return dest;
  }, paths.pythonTools);
  return { ...paths, harnessDir, nodeBin, pythonTools };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** `make()`, or `fallback` when it throws (the item stays where it is). */
function attempt(make: () => string, fallback: string): string {
  try {
    return make();
  } catch {
    return fallback;
  }
}

/** Mirrors `src` at `dest`: folders made, files hard-linked, symbolic links recreated as they are. */
function linkTree(src: string, dest: string): void {
  mkdirSync(dest, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(src)) {
    const from = path.join(src, name);
    const to = path.join(dest, name);
    const st = lstatSync(from);
    if (st.isDirectory()) linkTree(from, to);
    else if (st.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (st.isFile()) linkSync(from, to);
  }
}
