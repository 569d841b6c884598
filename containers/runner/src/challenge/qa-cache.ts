/**
 * @module runner/challenge/qa-cache
 * Challenge QA reports kept on disk by bundle sha256 (`RUNNER_QA_CACHE_DIR`; off when unset) and
 * reused while nothing that decides a verdict changed (docs/design.md §18). Invariants: only a
 * report the real QA produced and found publishable is stored; an entry is reused only when its
 * key (bundle, repeats, runner code, runtimes, ceilings, generator) matches and its report passes
 * `QaReportSchema`; anything else is a miss, and the QA runs again.
 */
import path from "node:path";
import { QaReportSchema, type QaReport } from "@bouts/contracts";
import { ok, type Result } from "@bouts/result";
import type { RunnerEnvironment } from "../job.ts";
import {
  buildRunnerCacheKey,
  computeRunnerFingerprint,
  readCacheEntry,
  writeCacheEntry,
  type CacheMiss,
  type RunnerCacheKey,
} from "../verdict-cache.ts";
import type { PreparedChallenge } from "./bundle.ts";
import { runChallengeQa, type QaError } from "./qa.ts";

/** What a cached QA is keyed by; a change in any of them is a miss. */
export interface QaCacheKey extends RunnerCacheKey {
  bundleSha256: string;
  repeats: number;
  /** QA always draws every candidate of the deterministic generator (packages/adversarial). */
  generator: "deterministic/all-candidates";
}

/** Why a cached report was not used. */
export type QaCacheMiss = CacheMiss;

/** A QA answer and where it came from. */
export type CachedQa =
  | { report: QaReport; cached: true }
  | { report: QaReport; cached: false; miss: QaCacheMiss; stored: boolean };

/** The key of a QA of `challenge` in this runner process. */
export function buildQaCacheKey(
  environment: RunnerEnvironment,
  challenge: PreparedChallenge,
  repeats: number,
  runnerFingerprint = computeRunnerFingerprint(),
): QaCacheKey {
  return {
    bundleSha256: challenge.sha256,
    repeats,
    ...buildRunnerCacheKey(environment, runnerFingerprint),
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
  const entry = readCacheEntry(entryPath(dir, key.bundleSha256), key);
  if (!entry.ok) return entry;
  const parsed = QaReportSchema.safeParse(entry.value);
  if (!parsed.success) return { ok: false, miss: "corrupt: not a QA report" };
  const r = parsed.data;
  if (r.challengeId !== challengeId || r.repeats !== key.repeats || !r.publishable)
    return { ok: false, miss: "corrupt: the report does not match its key" };
  return { ok: true, report: r };
}

/**
 * Stores a publishable report under its key (write, then rename: a reader never sees half); says
 * whether it did. A cache that cannot be written costs the next QA its reuse, never this QA.
 */
export function storeCachedQa(dir: string, key: QaCacheKey, report: QaReport): boolean {
  if (!report.publishable) return false;
  try {
    writeCacheEntry(entryPath(dir, key.bundleSha256), key, report);
    return true;
  } catch {
    return false;
  }
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
