/**
 * @module runner/verdict-cache
 * What the runner's two report caches share (challenge QA, `challenge/qa-cache.ts`; runs,
 * `run/run-cache.ts`; docs/design.md §18): the fingerprint of everything in the checkout a
 * verdict may depend on, the runner's part of every key, and entries on disk. Invariants: an
 * entry is read back only when its stored key equals the asked key exactly, and its value is
 * handed to the caller to check against its contract; an entry is written whole and renamed
 * into place, so a reader never sees half of one; anything else is a miss.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { RunnerEnvironment } from "./job.ts";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
/**
 * Files whose change may change a verdict: the runner, its harness, its scan rules and advisory
 * snapshot, the setup scripts that pin its tools (Semgrep, pytest), every package, the lockfile.
 */
const FINGERPRINTED = [
  "containers/runner/src",
  "containers/runner/harness",
  "containers/runner/scan-rules",
  "containers/runner/advisories",
  "scripts/setup",
  "packages",
];
const ENTRY_VERSION = 1;

/** Why a cached report was not used. */
export type CacheMiss = "absent" | "stale" | `corrupt: ${string}`;

/** The runner's part of a cache key: what it runs with, whatever the request. */
export interface RunnerCacheKey {
  /** sha256 of the files under FINGERPRINTED and the lockfile. */
  runnerFingerprint: string;
  runtimes: Record<string, string>;
  /** The ceilings every run's limits and budget derive from. */
  ceilings: Record<string, number>;
  cgroups: string;
}

let fingerprint: string | null = null;

/** sha256 over the path and bytes of every file under FINGERPRINTED (node_modules aside), and the lockfile. */
export function computeRunnerFingerprint(root = REPO_ROOT): string {
  if (fingerprint !== null && root === REPO_ROOT) return fingerprint;
  const hash = createHash("sha256");
  const walk = (rel: string) => {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) return;
    for (const e of readdirSync(abs, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      if (e.name === "node_modules" || e.name === ".venv" || e.name === "__pycache__") continue;
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile())
        hash
          .update(`${child}\0`)
          .update(readFileSync(path.join(root, child)))
          .update("\0");
    }
  };
  for (const rel of FINGERPRINTED) walk(rel);
  const lock = path.join(root, "package-lock.json");
  if (existsSync(lock)) hash.update("package-lock.json\0").update(readFileSync(lock));
  const value = hash.digest("hex");
  if (root === REPO_ROOT) fingerprint = value;
  return value;
}

/** The runner's part of every key in this process. */
export function buildRunnerCacheKey(
  environment: RunnerEnvironment,
  runnerFingerprint = computeRunnerFingerprint(),
): RunnerCacheKey {
  const c = environment.config;
  return {
    runnerFingerprint,
    runtimes: { ...environment.runtimeVersions },
    ceilings: {
      TEST_TIMEOUT_MS: c.TEST_TIMEOUT_MS,
      MEMORY_MB: c.MEMORY_MB,
      CPU_SECONDS: c.CPU_SECONDS,
      MAX_PROCESSES: c.MAX_PROCESSES,
      MAX_OPEN_FILES: c.MAX_OPEN_FILES,
      MAX_FILE_SIZE_MB: c.MAX_FILE_SIZE_MB,
      MAX_OUTPUT_BYTES: c.MAX_OUTPUT_BYTES,
      RUN_WALL_MS: c.RUN_WALL_MS,
      SCAN_DEADLINE_MS: c.SCAN_DEADLINE_MS,
    },
    cgroups: environment.cgroups ? `v${environment.cgroups.version}` : "none",
  };
}

/** The value stored in `file` under exactly `key`, unchecked, or why there is none. */
export function readCacheEntry(
  file: string,
  key: unknown,
): { ok: true; value: unknown } | { ok: false; miss: CacheMiss } {
  if (!existsSync(file)) return { ok: false, miss: "absent" };
  let entry: unknown;
  try {
    entry = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return { ok: false, miss: `corrupt: not JSON (${(e as Error).message})` };
  }
  if (typeof entry !== "object" || entry === null)
    return { ok: false, miss: "corrupt: not an entry" };
  const { version, key: storedKey, report } = entry as Record<string, unknown>;
  if (version !== ENTRY_VERSION) return { ok: false, miss: "stale" };
  if (JSON.stringify(storedKey) !== JSON.stringify(key)) return { ok: false, miss: "stale" };
  return { ok: true, value: report };
}

/** Writes `report` under `key` to `file` (write, then rename: a reader never sees half). */
export function writeCacheEntry(file: string, key: unknown, report: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomUUID()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ version: ENTRY_VERSION, key, report }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(tmp, file);
}
