/**
 * @module runner/scan
 * Security scanning of a submission folder. Until the scanners are wired in, every scan is
 * reported as unavailable (never as clean), which the engine refuses to score as secure.
 */
import type { ScanReport } from "@bouts/contracts";

export interface ScanOptions {
  /** The challenge runtime, which picks the rule sets. */
  runtime: "node" | "python";
  /** Wall-clock budget for the whole scan. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Scans the files under `dir` (a submission's unpacked workspace) and normalizes the findings. */
export function scanSubmission(_dir: string, _options: ScanOptions): Promise<ScanReport> {
  return Promise.resolve({
    status: "unavailable",
    findings: [],
    tools: [],
    skipped: [],
    notMeasured: [{ check: "all", reason: "no scanner is installed in this runner yet" }],
    durationMs: 0,
  });
}
