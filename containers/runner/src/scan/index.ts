/**
 * @module runner/scan
 * Security scanning of a submission folder: Semgrep with our rules and ESLint security rules,
 * normalized to the seed's severities. Invariants: the platform picks what is scanned (see
 * targets.ts), never the submission; every file not scanned is listed in `skipped`, and so is
 * every place code is run from a source the scan cannot see (dynamic-code.ts: eval of a
 * string, a module named at run time, a data file loaded as a module …); a scanner that
 * crashes, fails or runs out of time makes the scan "unavailable", never clean; the
 * dependency check is "not measured" until an advisory source exists.
 * Status: "complete" = every tool ran and nothing was skipped; "partial" = tools ran but some
 * files or some dynamically loaded code were not scanned; "unavailable" = a tool failed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ScanReport } from "@bouts/contracts";
import { describeDependencyCheck } from "./dependencies.ts";
import { buildUnscannedFinding, describeDynamicCode } from "./dynamic-code.ts";
import { runEslint } from "./eslint.ts";
import { normalizeFindings } from "./normalize.ts";
import { runSemgrep } from "./semgrep.ts";
import { collectTargets, DEFAULT_TARGET_LIMITS } from "./targets.ts";
import type { TargetLimits } from "./targets.ts";

export { computeSecurityScore, CWE_SEVERITY, CRITICAL_FINAL_SCORE_CAP } from "./severity.ts";
export { DYNAMIC_CODE_REASON_PREFIX } from "./dynamic-code.ts";
export { findUnscannableCode } from "./unscannable.ts";
export type { UnscannableFile } from "./unscannable.ts";

export interface ScanOptions {
  /** The challenge runtime; names the dependency ecosystem. Both languages' rules always run. */
  runtime: "node" | "python";
  /** Wall-clock budget for the whole scan (default 120 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** File limits (defaults: 1 MiB per file, 5000 files). */
  limits?: TargetLimits;
  /** Seconds Semgrep may spend on one rule and file (default 10). */
  perFileTimeoutSec?: number;
  /** Semgrep binary (default: RUNNER_SEMGREP_BIN or <repo>/.venv/bin/semgrep). */
  semgrepBin?: string;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/** Scans the files under `dir` (a submission's unpacked workspace) and normalizes the findings. */
export async function scanSubmission(dir: string, options: ScanOptions): Promise<ScanReport> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const scratchDir = await mkdtemp(path.join(tmpdir(), "bouts-scan-"));
  try {
    const limits = options.limits ?? DEFAULT_TARGET_LIMITS;
    const { targets, skipped } = await collectTargets(dir, scratchDir, limits);
    const [semgrep, eslint] = await Promise.all([
      runSemgrep({
        scratchDir,
        maxFileBytes: limits.maxFileBytes,
        perFileTimeoutSec: options.perFileTimeoutSec ?? 10,
        signal: controller.signal,
        bin: options.semgrepBin,
      }),
      runEslint({ scratchDir, targets, signal: controller.signal }),
    ]);
    const fileOf = new Map(targets.map((t) => [t.scratchPath, t.file]));
    const { findings, unplaced } = normalizeFindings(
      [...semgrep.findings, ...eslint.findings],
      fileOf,
    );
    const dependencies = await describeDependencyCheck(dir, options.runtime);
    const tools: ScanReport["tools"] = [
      semgrep.run,
      eslint.run,
      { tool: "deps", version: null, status: "not-run", detail: dependencies.reason },
    ];
    if (unplaced.length > 0) {
      // A rule without a placed CWE is our bug; do not let it pass as a clean result.
      tools.push({
        tool: "normalize",
        version: null,
        status: "failed",
        detail:
          `rules with no severity in the table: ${[...new Set(unplaced.map((u) => u.rule))].join(", ")}`.slice(
            0,
            2000,
          ),
      });
    }
    const toolSkips = [...semgrep.skipped, ...eslint.skipped].map((s) => ({
      file: fileOf.get(s.scratchPath) ?? s.scratchPath,
      reason: s.reason.slice(0, 500),
    }));
    const dynamicCode = await describeDynamicCode({
      dir,
      fileOf,
      unscanned: [...(semgrep.unscanned ?? []), ...(eslint.unscanned ?? [])],
      loads: [...(semgrep.loads ?? []), ...(eslint.loads ?? [])],
    });
    const allSkipped = [...skipped, ...toolSkips, ...dynamicCode];
    if (dynamicCode.length > 0) findings.push(buildUnscannedFinding(dynamicCode));
    const failed = tools.some((t) => t.status === "failed");
    return {
      status: failed ? "unavailable" : allSkipped.length > 0 ? "partial" : "complete",
      findings,
      tools,
      skipped: allSkipped,
      notMeasured: [dependencies],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    await rm(scratchDir, { recursive: true, force: true });
  }
}
