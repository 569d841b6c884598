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
import {
  checkDependencies,
  describeDependencyCheck,
  toScanAdvisories,
  type AdvisorySource,
} from "./dependencies.ts";
import type { AdvisoryPackage } from "./advisories/index.ts";
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
  /**
   * The dependency check: the packages the submission's own lockfile resolves (null when it
   * brings none) and where advisories come from (null: none, the check is not measured).
   * Absent: not measured, naming the lockfiles found.
   */
  dependencies?: {
    lockfile: string | null;
    /** Undefined when the lockfile could not be read (`refused` says why). */
    packages: readonly AdvisoryPackage[] | null | undefined;
    source: AdvisorySource | null;
    refused?: string;
  };
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
    const deps = await runDependencyCheck(dir, options, controller.signal);
    findings.push(...deps.findings);
    // Only the deadline makes a stopped tool a partial scan; the caller's signal is a failure.
    const byDeadline = deadlineHit && !(options.signal?.aborted ?? false);
    const stopped = [semgrep, eslint].filter((t) => t.stopped);
    for (const t of stopped)
      t.run = byDeadline
        ? { ...t.run, detail: `stopped by the scan's deadline of ${deadlineMs} ms` }
        : { ...t.run, status: "failed", detail: "stopped: the scan was cancelled" };
    const tools: ScanReport["tools"] = [semgrep.run, eslint.run, deps.tool];
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
      notMeasured: deps.notMeasured,
      ...(deps.advisories ? { advisories: deps.advisories } : {}),
      durationMs: Math.round(performance.now() - started),
      deadline: { ms: deadlineMs, exhausted },
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    await rm(scratchDir, { recursive: true, force: true });
  }
}

/**
 * The dependency check of a scan: the submission's own resolved packages against advisories.
 * A submission that brings no dependencies has none vulnerable (measured, 0 packages); without
 * an advisory source, or without the packages, it is not measured, never clean.
 */
async function runDependencyCheck(
  dir: string,
  options: ScanOptions,
  signal: AbortSignal,
): Promise<{
  findings: ScanReport["findings"];
  tool: ScanReport["tools"][number];
  notMeasured: ScanReport["notMeasured"];
  advisories?: ScanReport["advisories"];
}> {
  const given = options.dependencies;
  const notRun = (reason: string) => ({
    findings: [],
    tool: { tool: "deps", version: null, status: "not-run" as const, detail: reason },
    notMeasured: [{ check: "dependencies", reason: reason.slice(0, 500) }],
  });
  if (!given) return notRun((await describeDependencyCheck(dir, options.runtime)).reason);
  if (given.source === null) return notRun("no advisory source is available");
  if (given.packages === undefined)
    return notRun(`the lockfile could not be read: ${given.refused ?? "refused"}`);
  if (given.packages === null) {
    const source = given.source;
    return {
      findings: [],
      tool: {
        tool: "deps",
        version: null,
        status: "ok",
        detail: "the submission brings no dependencies of its own",
      },
      notMeasured: [],
      advisories:
        source.kind === "live"
          ? { source: "osv-api", asOf: new Date().toISOString(), packages: 0 }
          : { source: "snapshot", asOf: source.snapshot.asOf, packages: 0 },
    };
  }
  const checked = await checkDependencies({
    packages: given.packages,
    lockfile: given.lockfile ?? "package-lock.json",
    source: given.source,
    signal,
  });
  if (!checked.measured) return notRun(checked.notMeasured.reason);
  const unchecked = checked.unchecked.map((u) => `${u.name}@${u.version}: ${u.reason}`);
  return {
    findings: checked.findings,
    tool: {
      tool: "deps",
      version: null,
      status: "ok",
      detail: `${checked.provenance.checkedPackages} package versions checked against ${checked.provenance.source} (as of ${checked.provenance.asOf})`,
    },
    notMeasured: unchecked.length
      ? [{ check: "dependencies", reason: `not checked: ${unchecked.join("; ")}`.slice(0, 500) }]
      : [],
    advisories: toScanAdvisories(checked.provenance),
  };
}
