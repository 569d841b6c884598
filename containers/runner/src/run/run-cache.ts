/**
 * @module runner/run/run-cache
 * Run reports kept on disk by everything that decides them (`RUNNER_RUN_CACHE_DIR`; off when
 * unset, as in production) and reused for a run of the same bytes (docs/design.md §18).
 * Invariants: only a report the real run produced is stored, and only one no outside condition
 * shaped (no infrastructure error, a complete scan, an unexhausted budget, advisories from the
 * shipped snapshot); an entry is reused only when its key (bundle, submission, draw key, requested
 * limits, archive limits, runner code, runtimes, ceilings) matches and its report passes
 * `RunReportSchema` for the same bundle and submission; a reused report carries the asking run's
 * id and says in its notes that it was reused. The draw key itself is never written: its sha256 is.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { RunReportSchema, type RunLimits, type RunReport } from "@bouts/contracts";
import { ok, type Result } from "@bouts/result";
import { runJob, type JobContext, type JobError } from "../job.ts";
import { resolveUnpackLimits } from "../job-limits.ts";
import {
  buildRunnerCacheKey,
  computeRunnerFingerprint,
  readCacheEntry,
  writeCacheEntry,
  type CacheMiss,
  type RunnerCacheKey,
} from "../verdict-cache.ts";

/** What a cached run is keyed by; a change in any of them is a miss. */
export interface RunCacheKey extends RunnerCacheKey {
  bundleSha256: string;
  submissionSha256: string;
  /** sha256 of the job's draw key (null: none, the public key): which generated tests are drawn. */
  drawKeySha256: string | null;
  /** The limits the request lowered, by name in order. */
  requestedLimits: Partial<RunLimits>;
  /** The archive limits the submission was unpacked under (size, expanded size, entries, depth). */
  archive: Record<string, number>;
  /** A run draws the deterministic generator's tests for its submission (packages/adversarial). */
  generator: "deterministic/select";
}

/** A run's report and where it came from; `notStored` says why a fresh report was not kept. */
export type CachedRun =
  | { report: RunReport; cached: true }
  | { report: RunReport; cached: false; miss: CacheMiss; notStored: string | null };

/** The key of the run `ctx` describes, in this runner process. */
export function buildRunCacheKey(
  ctx: Pick<
    JobContext,
    "challenge" | "submissionSha256" | "drawKey" | "requestedLimits" | "environment"
  >,
  runnerFingerprint = computeRunnerFingerprint(),
): RunCacheKey {
  const limits = Object.entries(ctx.requestedLimits).sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    bundleSha256: ctx.challenge.sha256,
    submissionSha256: ctx.submissionSha256,
    drawKeySha256:
      ctx.drawKey === undefined ? null : createHash("sha256").update(ctx.drawKey).digest("hex"),
    requestedLimits: Object.fromEntries(limits),
    archive: { ...resolveUnpackLimits(ctx.environment.config) },
    ...buildRunnerCacheKey(ctx.environment, runnerFingerprint),
    generator: "deterministic/select",
  };
}

/** An entry's file: named by the key's sha256, so no key shares a file with another. */
export function runCacheEntryPath(dir: string, key: RunCacheKey): string {
  const name = createHash("sha256").update(JSON.stringify(key)).digest("hex");
  return path.join(dir, `${name}.json`);
}

/**
 * Why `report` may not be kept, or null when it may: a verdict an outside condition shaped (the
 * sandbox, a loaded machine's scan deadline or run budget, a live advisory source that answers
 * differently tomorrow) must be measured again, not repeated.
 */
export function refuseToCache(report: RunReport): string | null {
  if (report.infrastructure !== null) return `infrastructure: ${report.infrastructure.reason}`;
  if (report.scan.status !== "complete") return `scan ${report.scan.status}`;
  if (report.budget?.exhausted === true) return "run budget exhausted";
  const advisories = report.scan.advisories;
  if (
    advisories !== undefined &&
    (advisories.source !== "snapshot" || advisories.fallback !== undefined)
  )
    return "advisories not from the shipped snapshot";
  return null;
}

/** The stored report for `key`, given the asking run's id, or why there is none usable. */
export function readCachedRun(
  dir: string,
  key: RunCacheKey,
  runId: string,
): { ok: true; report: RunReport } | { ok: false; miss: CacheMiss } {
  const entry = readCacheEntry(runCacheEntryPath(dir, key), key);
  if (!entry.ok) return entry;
  const parsed = RunReportSchema.safeParse(entry.value);
  if (!parsed.success) return { ok: false, miss: "corrupt: not a run report" };
  const r = parsed.data;
  if (
    r.bundleSha256 !== key.bundleSha256 ||
    r.submissionSha256 !== key.submissionSha256 ||
    refuseToCache(r) !== null
  )
    return { ok: false, miss: "corrupt: the report does not match its key" };
  const note = `reused from the runner's run cache: the same bundle, files, draw key and limits ran at ${r.timings.startedAt}`;
  return { ok: true, report: { ...r, runId, notes: [...r.notes.slice(0, 99), note] } };
}

/**
 * Stores `report` under its key when nothing outside the run shaped it; answers why it did not
 * (null: stored). A cache that cannot be written costs the next run its reuse, never this
 * run its report.
 */
export function storeCachedRun(dir: string, key: RunCacheKey, report: RunReport): string | null {
  const refused = refuseToCache(report);
  if (refused !== null) return refused;
  try {
    writeCacheEntry(runCacheEntryPath(dir, key), key, report);
    return null;
  } catch (e) {
    return `the cache could not be written (${(e as Error).message})`;
  }
}

/**
 * A run through the cache in `dir`: a valid entry for its key answers, under this run's id;
 * otherwise the job runs, and its report is stored when `refuseToCache` finds nothing and the
 * directory can be written.
 */
export async function runCachedJob(
  ctx: JobContext,
  dir: string,
): Promise<Result<CachedRun, JobError>> {
  const key = buildRunCacheKey(ctx);
  const hit = readCachedRun(dir, key, ctx.runId);
  if (hit.ok) return ok({ report: hit.report, cached: true });
  const r = await runJob(ctx);
  if (!r.ok) return r;
  const notStored = storeCachedRun(dir, key, r.value);
  return ok({ report: r.value, cached: false, miss: hit.miss, notStored });
}
