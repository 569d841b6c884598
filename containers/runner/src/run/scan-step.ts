/**
 * @module runner/run/scan-step
 * A run's security scan, as the job runs it beside the tests: the submission's own copy, with
 * its own dependencies (the lock it brought, installed and read by deps/submission.ts) checked
 * against advisories. Invariants: a scan that was skipped or failed is "unavailable", never
 * clean; the advisory source is the configured one (live OSV, else the shipped snapshot).
 */
import type { ChallengeManifest, ScanReport } from "@bouts/contracts";
import type { DependencySet } from "@bouts/dependencies";
import type { RunnerConfig } from "../config.ts";
import { resolveAdvisorySource } from "../scan/dependencies.ts";
import { resolveSemgrepCoreBin, scanSubmission } from "../scan/index.ts";

const unavailable = (reason: string): ScanReport => ({
  status: "unavailable",
  findings: [],
  tools: [],
  skipped: [],
  notMeasured: [{ check: "all", reason }],
  durationMs: 0,
});

/** What one run's scan reads and how long it may take. */
export interface ScanStepOptions {
  submissionDir: string;
  manifest: ChallengeManifest;
  config: RunnerConfig;
  /** Why this run is not scanned, or null to scan. */
  skip: string | null;
  /** The submission's own dependencies, or null when it brings none. */
  dependencies: DependencySet | null;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Scans the submission (or says why not) and times it. */
export async function runScanStep(
  options: ScanStepOptions,
): Promise<{ scan: ScanReport; scanMs: number }> {
  const t0 = performance.now();
  let scan: ScanReport;
  if (options.skip !== null) scan = unavailable(options.skip);
  else
    try {
      scan = await scanSubmission(options.submissionDir, {
        runtime: options.manifest.runtime === "node22" ? "node" : "python",
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        semgrepCoreBin: resolveSemgrepCoreBin(options.config),
        dependencies: {
          lockfile: options.dependencies?.lockfile ?? null,
          packages: options.dependencies?.packages ?? null,
          source: await resolveAdvisorySource(options.config),
        },
      });
    } catch (e) {
      scan = unavailable(`scanner failed: ${(e as Error).message}`.slice(0, 500));
    }
  return { scan, scanMs: performance.now() - t0 };
}
