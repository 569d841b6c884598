/**
 * @module runner/challenge/qa-cache
 * Challenge QA reports kept on disk by bundle sha256 (`RUNNER_QA_CACHE_DIR`; off when unset) and
 * reused while nothing that decides a verdict changed (docs/design.md §18). Invariants: only a
 * report the real QA produced and found publishable is stored; an entry is reused only when its
 * key (bundle, repeats, runner code, runtimes, ceilings, generator) matches and its report passes
 * `QaReportSchema`; anything else is a miss, and the QA runs again.
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
import { QaReportSchema, type QaReport } from "@bouts/contracts";
import { ok, type Result } from "@bouts/result";
import type { RunnerEnvironment } from "../job.ts";
import type { PreparedChallenge } from "./bundle.ts";
import { runChallengeQa, type QaError } from "./qa.ts";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../../..");
/** Sources whose change may change a verdict: the runner, its harness, every package, the lockfile. */
const FINGERPRINTED = ["containers/runner/src", "containers/runner/harness", "packages"];
const ENTRY_VERSION = 1;

/** What a cached QA is keyed by; a change in any of them is a miss. */
export interface QaCacheKey {
  bundleSha256: string;
  repeats: number;
  /** sha256 of the runner's sources, harness, packages and lockfile (see FINGERPRINTED). */
  runnerFingerprint: string;
  runtimes: Record<string, string>;
  /** The ceilings every QA run's limits and budget derive from. */
  ceilings: Record<string, number>;
  cgroups: string;
  /** QA always draws every candidate of the deterministic generator (packages/adversarial). */
  generator: "deterministic/all-candidates";
}

/** Why a cached report was not used. */
export type QaCacheMiss = "absent" | "stale" | `corrupt: ${string}`;

/** A QA answer and where it came from. */
export type CachedQa =
  | { report: QaReport; cached: true }
  | { report: QaReport; cached: false; miss: QaCacheMiss; stored: boolean };

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

/** The key of a QA of `challenge` in this runner process. */
export function buildQaCacheKey(
  environment: RunnerEnvironment,
  challenge: PreparedChallenge,
  repeats: number,
  runnerFingerprint = computeRunnerFingerprint(),
): QaCacheKey {
  const c = environment.config;
  return {
    bundleSha256: challenge.sha256,
    repeats,
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
    generator: "deterministic/all-candidates",
  };
}

function entryPath(dir: string, bundleSha256: string): string {
  return path.join(dir, `${bundleSha256}.json`);
}

/** The stored report for `key`, or why there is none usable. */
export function readCachedQa(
  dir: string,
  key: QaCacheKey,
  challengeId: string,
): { ok: true; report: QaReport } | { ok: false; miss: QaCacheMiss } {
  const file = entryPath(dir, key.bundleSha256);
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
  const parsed = QaReportSchema.safeParse(report);
  if (!parsed.success) return { ok: false, miss: "corrupt: not a QA report" };
  const r = parsed.data;
  if (r.challengeId !== challengeId || r.repeats !== key.repeats || !r.publishable)
    return { ok: false, miss: "corrupt: the report does not match its key" };
  return { ok: true, report: r };
}

/** Stores a publishable report under its key (write, then rename: a reader never sees half). */
export function storeCachedQa(dir: string, key: QaCacheKey, report: QaReport): boolean {
  if (!report.publishable) return false;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = entryPath(dir, key.bundleSha256);
  const tmp = `${file}.${randomUUID()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ version: ENTRY_VERSION, key, report }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(tmp, file);
  return true;
}

/**
 * Challenge QA through the cache in `dir`: a valid entry for this key is answered as stored;
 * otherwise the QA runs, and its report is stored only if publishable (a failed QA, including one
 * with an infrastructure problem, is never stored: the next attempt runs QA again).
 */
export async function runCachedChallengeQa(
  environment: RunnerEnvironment,
  challenge: PreparedChallenge,
  repeats: number,
  dir: string,
): Promise<Result<CachedQa, QaError>> {
  const key = buildQaCacheKey(environment, challenge, repeats);
  const hit = readCachedQa(dir, key, challenge.manifest.id);
  if (hit.ok) return ok({ report: hit.report, cached: true });
  const qa = await runChallengeQa(environment, challenge, repeats);
  if (!qa.ok) return qa;
  const stored = storeCachedQa(dir, key, qa.value);
  return ok({ report: qa.value, cached: false, miss: hit.miss, stored });
}
