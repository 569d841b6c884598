/**
 * @module runner/scan
 * Security scanning of a submission folder: Semgrep with our rules and ESLint security rules,
 * normalized to the engineering spec's severities (docs/security-scanning.md). Invariants: the
 * platform picks what is scanned (targets.ts), never the submission; every file or dynamic load
 * not scanned is in `skipped`; a failing tool or a deadline (deadline.ts) is never a clean scan;
 * the dependency check is "not measured" until an advisory source exists.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ScanReport } from "@bouts/contracts";
import { buildDeadlineFinding, buildDeadlineSkips } from "./deadline.ts";
import { describeDependencyCheck } from "./dependencies.ts";
import { buildUnscannedFinding, describeDynamicCode } from "./dynamic-code.ts";
import { runEslint } from "./eslint.ts";
import { normalizeFindings } from "./normalize.ts";
import { runSemgrep } from "./semgrep.ts";

export { resolveSemgrepCoreBin } from "./semgrep.ts";
import { collectTargets, DEFAULT_TARGET_LIMITS } from "./targets.ts";
import type { TargetLimits } from "./targets.ts";

export { computeSecurityScore, CWE_SEVERITY, CRITICAL_FINAL_SCORE_CAP } from "./severity.ts";
export { DYNAMIC_CODE_REASON_PREFIX } from "./dynamic-code.ts";
export { findUnscannableCode } from "./unscannable.ts";
export type { UnscannableFile } from "./unscannable.ts";

export interface ScanOptions {
  /** The challenge runtime; names the dependency ecosystem. Both languages' rules always run. */
  runtime: "node" | "python";
  /** The scan's deadline (default 120 s); past it the scan is partial, never clean. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** File limits (defaults: 1 MiB per file, 5000 files). */
  limits?: TargetLimits;
  /** Seconds Semgrep may spend on one rule and file (default 10). */
  perFileTimeoutSec?: number;
  /** The Semgrep engine, semgrep-core (default: resolveSemgrepCoreBin() in semgrep.ts). */
  semgrepCoreBin?: string;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/** Scans the files under `dir` (a submission's unpacked workspace) and normalizes the findings. */
export async function scanSubmission(dir: string, options: ScanOptions): Promise<ScanReport> {
  const started = performance.now();
  const controller = new AbortController();
  const deadlineMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let deadlineHit = false;
  const timer = setTimeout(() => {
    deadlineHit = true;
    controller.abort();
  }, deadlineMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const scratchDir = await mkdtemp(path.join(tmpdir(), "bouts-scan-"));
  try {
    const limits = options.limits ?? DEFAULT_TARGET_LIMITS;
    const { targets, skipped } = await collectTargets(dir, scratchDir, limits);
    const [semgrep, eslint] = await Promise.all([
      runSemgrep({
        scratchDir,
        targets,
        perFileTimeoutSec: options.perFileTimeoutSec ?? 10,
        signal: controller.signal,
        bin: options.semgrepCoreBin,
      }),
      runEslint({ scratchDir, targets, signal: controller.signal }),
    ]);
    const fileOf = new Map(targets.map((t) => [t.scratchPath, t.file]));
    const { findings, unplaced } = normalizeFindings(
      [...semgrep.findings, ...eslint.findings],
      fileOf,
    );
    const dependencies = await describeDependencyCheck(dir, options.runtime);
    // Only the deadline makes a stopped tool a partial scan; the caller's signal is a failure.
    const byDeadline = deadlineHit && !(options.signal?.aborted ?? false);
    const stopped = [semgrep, eslint].filter((t) => t.stopped);
    for (const t of stopped)
      t.run = byDeadline
        ? { ...t.run, detail: `stopped by the scan's deadline of ${deadlineMs} ms` }
        : { ...t.run, status: "failed", detail: "stopped: the scan was cancelled" };
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
    const exhausted = byDeadline && stopped.length > 0;
    // ESLint lists the files it did not reach itself; a stopped Semgrep read none of them.
    const deadlineSkips = semgrep.stopped
      ? buildDeadlineSkips(
          "semgrep",
          targets.map((t) => t.file),
          deadlineMs,
        )
      : [];
    const allSkipped = [
      ...skipped,
      ...toolSkips,
      ...dynamicCode,
      ...(exhausted ? deadlineSkips : []),
    ];
    if (dynamicCode.length > 0) findings.push(buildUnscannedFinding(dynamicCode));
    if (exhausted)
      findings.push(
        buildDeadlineFinding(
          stopped.map((t) => t.run.tool),
          allSkipped[0]?.file ?? "",
          deadlineMs,
        ),
      );
    // complete: every tool ran and nothing was skipped; partial: some files or dynamically loaded
    // code were not scanned, or the deadline stopped a tool; unavailable: a tool failed, or the
    // caller's signal stopped the scan.
    const failed = tools.some((t) => t.status === "failed");
    return {
      status: failed ? "unavailable" : allSkipped.length > 0 || exhausted ? "partial" : "complete",
      findings,
      tools,
      skipped: allSkipped,
      notMeasured: [dependencies],
      durationMs: Math.round(performance.now() - started),
      deadline: { ms: deadlineMs, exhausted },
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    await rm(scratchDir, { recursive: true, force: true });
  }
}
