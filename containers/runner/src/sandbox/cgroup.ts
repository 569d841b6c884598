/**
 * @module runner/sandbox/cgroup
 * Per-uid control groups (cgroup v1, or delegated v2): a memory ceiling for the whole tree, a
 * process-count ceiling and an equal CPU share, so one run's fork bomb or busy loop cannot starve
 * another. Invariants: a group (`uid-<uid>-<pid>`) is opened only by its uid's holder in this
 * runner, never by two runs; `release()` leaves only the uid's launcher in it; groups of dead
 * runner processes are removed at start-up; OOM kills count from the group's opening.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Where each controller's parent folder is, or null when cgroups are not usable. */
export interface CgroupSupport {
  version: 1 | 2;
  /** v1: controller → parent dir for our groups; v2: one dir under "unified". */
  dirs: { memory: string; pids: string; cpu: string } | { unified: string };
}

/** Limits for one group. */
export interface CgroupLimits {
  memoryBytes: number;
  maxProcesses: number;
}

/** A live group; the sandbox launcher joins it once and forks sandboxes inside it. */
export interface RunCgroup {
  /** cgroup.procs files the launcher writes its own pid into when it starts. */
  procsFiles: string[];
  /** True when the kernel OOM-killed something in the group since it was opened. */
  readOomKilled(): boolean;
  /** SIGKILLs every process left in the group but the launcher, and waits until they are gone. */
  release(): Promise<void>;
}

function ownPath(controller: string): string | null {
  const lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  for (const line of lines) {
    const [, ctrls, p] = line.split(":");
    if (ctrls === undefined || p === undefined) continue;
    if (controller === "" ? ctrls === "" : ctrls.split(",").includes(controller)) return p;
  }
  return null;
}

/** Removes empty groups left by runner processes that no longer exist (names end in -<pid>). */
function removeStaleGroups(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(/-(\d+)$/.exec(name)?.[1]);
    if (!pid || existsSync(`/proc/${pid}`)) continue;
    try {
      rmdirSync(path.join(dir, name));
    } catch {
      // not empty or already gone: leave it
    }
  }
}

function tryMakeParent(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    removeStaleGroups(dir);
    return existsSync(path.join(dir, "cgroup.procs"));
  } catch {
    return false;
  }
}

/** Best effort: without it sandboxes still share CPU equally among themselves. */
function trySetWeight(file: string, weight: number): void {
  try {
    writeFileSync(file, String(weight));
  } catch {
    // not delegated to us: keep the inherited weight
  }
}

/**
 * Finds writable cgroup hierarchies (v1 first, as on this host; then v2); null when there is none,
 * and the sandbox falls back to rlimits only (`GET /healthz` says which). The parent group of
 * all sandboxes gets the CPU weight of `concurrentSandboxes` ordinary processes: each sandbox
 * group has the weight of one process inside it, so under host load a sandboxed test competes
 * like one ordinary process would, instead of all sandboxes sharing one process's weight.
 */
export function detectCgroups(
  root = "/sys/fs/cgroup",
  concurrentSandboxes = 2,
): CgroupSupport | null {
  try {
    const v1 = { memory: "", pids: "", cpu: "" };
    let v1ok = true;
    for (const c of ["memory", "pids", "cpu"] as const) {
      const own = ownPath(c);
      const base = path.join(root, c);
      const dir = path.join(base, own ?? "/", "bouts");
      if (own === null || !existsSync(base) || !tryMakeParent(dir)) {
        v1ok = false;
        break;
      }
      v1[c] = dir;
    }
    if (v1ok) {
      trySetWeight(path.join(v1.cpu, "cpu.shares"), 1024 * concurrentSandboxes);
      return { version: 1, dirs: v1 };
    }
    const own2 = ownPath("");
    const unifiedRoot = existsSync(path.join(root, "cgroup.controllers"))
      ? root
      : path.join(root, "unified");
    if (own2 !== null && existsSync(path.join(unifiedRoot, "cgroup.controllers"))) {
      const parent = path.join(unifiedRoot, own2);
      const dir = path.join(parent, "bouts");
      const ctrls = readFileSync(path.join(parent, "cgroup.controllers"), "utf8");
      if (["memory", "pids", "cpu"].every((c) => ctrls.includes(c)) && tryMakeParent(dir)) {
        writeFileSync(path.join(dir, "cgroup.subtree_control"), "+memory +pids +cpu");
        trySetWeight(path.join(dir, "cpu.weight"), 100 * concurrentSandboxes);
        return { version: 2, dirs: { unified: dir } };
      }
    }
  } catch {
    return null;
  }
  return null;
}

function readProcs(dir: string): number[] {
  try {
    return readFileSync(path.join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** SIGKILLs every process in `dir` but `spare()` (the group's launcher) until none is left. */
async function emptyGroup(dir: string, spare: () => number | null): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const keep = spare();
    const pids = readProcs(dir).filter((p) => p !== keep);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    // tasks leave the group as they finish exiting, usually within a millisecond
    await sleep(attempt < 20 ? 1 : 10);
  }
}

function readCounter(file: string, key: string): number {
  try {
    return Number(new RegExp(`${key} (\\d+)`).exec(readFileSync(file, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

/**
 * Opens (creating on first use) the group `name` and sets its limits; empties it first. One group
 * per host uid, reused by every sandbox of that uid: creating and removing a memory cgroup per test
 * costs more than the test's interpreter start-up.
 * `spare()` names the one process that lives in the group between sandboxes (the launcher),
 * which sweeps leave alone and which `pids.max` makes room for.
 */
export async function openRunCgroup(
  support: CgroupSupport,
  name: string,
  limits: CgroupLimits,
  spare: () => number | null = () => null,
): Promise<RunCgroup> {
  const maxPids = String(limits.maxProcesses + 1);
  if ("unified" in support.dirs) {
    const dir = path.join(support.dirs.unified, name);
    ensureDir(dir);
    await emptyGroup(dir, spare);
    writeFileSync(path.join(dir, "memory.max"), String(limits.memoryBytes));
    writeFileSync(path.join(dir, "memory.swap.max"), "0");
    writeFileSync(path.join(dir, "pids.max"), maxPids);
    writeFileSync(path.join(dir, "cpu.weight"), "100");
    const events = path.join(dir, "memory.events");
    const baseline = readCounter(events, "oom_kill");
    return {
      procsFiles: [path.join(dir, "cgroup.procs")],
      readOomKilled: () => readCounter(events, "oom_kill") > baseline,
      release: () => emptyGroup(dir, spare),
    };
  }
  const { memory, pids, cpu } = support.dirs;
  const mem = path.join(memory, name);
  const pid = path.join(pids, name);
  const cp = path.join(cpu, name);
  for (const d of [mem, pid, cp]) {
    ensureDir(d);
    await emptyGroup(d, spare);
  }
  writeFileSync(path.join(mem, "memory.limit_in_bytes"), String(limits.memoryBytes));
  writeFileSync(path.join(pid, "pids.max"), maxPids);
  writeFileSync(path.join(cp, "cpu.shares"), "1024");
  const oomControl = path.join(mem, "memory.oom_control");
  const baseline = readCounter(oomControl, "oom_kill");
  return {
    procsFiles: [mem, pid, cp].map((d) => path.join(d, "cgroup.procs")),
    readOomKilled: () => readCounter(oomControl, "oom_kill") > baseline,
    release: async () => {
      for (const d of [pid, mem, cp]) await emptyGroup(d, spare);
    },
  };
}
