/**
 * @module runner/job-limits
 * The limits of one run: the unpack caps from config, and the run limits resolved from the
 * config's ceilings, the challenge's values and the request. Invariant: limits are only ever
 * lowered; a request above the effective ceiling is refused, never clamped. Pure.
 */
import type { ChallengeLimits, RunLimits } from "@bouts/contracts";
import { err, ok, type Result } from "@bouts/result";
import type { UnpackLimits } from "./archive/unpack.ts";
import type { RunnerConfig } from "./config.ts";

/** A requested limit above the run's effective ceiling. */
export interface LimitAboveCeiling {
  reason: "limit-above-ceiling";
  key: keyof RunLimits;
  requested: number;
  ceiling: number;
}

/** Unpack caps from config. */
export function resolveUnpackLimits(config: RunnerConfig): UnpackLimits {
  return {
    maxArchiveBytes: config.MAX_ARCHIVE_BYTES,
    maxExpandedBytes: config.MAX_EXPANDED_BYTES,
    maxEntries: config.MAX_ENTRIES,
    maxDepth: config.MAX_DEPTH,
  };
}

/**
 * Resolves the limits of a run: config ceilings, lowered (silently) to the challenge's values,
 * lowered again by the request. A request above the effective ceiling is refused, never clamped up.
 * `runWallMs` here is the budget's ceiling; prime() settles the budget itself once it knows
 * how many tests the run has (resolveRunBudget).
 */
export function resolveRunLimits(
  config: RunnerConfig,
  challenge: ChallengeLimits,
  requested: Partial<RunLimits>,
): Result<RunLimits, LimitAboveCeiling> {
  const ceiling: RunLimits = {
    testTimeoutMs: Math.min(config.TEST_TIMEOUT_MS, challenge.testTimeoutMs),
    memoryMb: Math.min(config.MEMORY_MB, challenge.memoryMb),
    cpuSeconds: Math.min(config.CPU_SECONDS, challenge.cpuSeconds),
    maxProcesses: Math.min(config.MAX_PROCESSES, challenge.maxProcesses),
    maxOpenFiles: Math.min(config.MAX_OPEN_FILES, challenge.maxOpenFiles),
    maxFileSizeMb: Math.min(config.MAX_FILE_SIZE_MB, challenge.maxFileSizeMb),
    maxOutputBytes: Math.min(config.MAX_OUTPUT_BYTES, challenge.maxOutputBytes),
    runWallMs: Math.min(config.RUN_WALL_MS, challenge.runWallMs ?? config.RUN_WALL_MS),
  };
  const out = { ...ceiling };
  for (const key of Object.keys(ceiling) as (keyof RunLimits)[]) {
    const want = requested[key];
    if (want === undefined) continue;
    if (want > ceiling[key]) {
      return err({ reason: "limit-above-ceiling", key, requested: want, ceiling: ceiling[key] });
    }
    out[key] = want;
  }
  return ok(out);
}
