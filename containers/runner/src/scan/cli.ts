/**
 * @module runner/scan/cli
 * `npm run scan -- <dir> [--json] [--runtime node|python]`: scans a folder outside any
 * challenge with the same scanners and rules as the runner, and prints the findings, their CWE
 * and severity, and the security score they would give. The folder's lockfile
 * (package-lock.json, requirements.txt or uv.lock, read by @bouts/dependencies) is checked
 * against the runner's advisory source: offline, the snapshot shipped with the runner. Exit code: 0 when the scan ran (with or
 * without findings), 1 when it was unavailable, 2 on bad usage.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { ScanReport } from "@bouts/contracts";
import { loadRunnerConfigOrExit } from "../config.ts";
import {
  DEFAULT_DEPENDENCY_POLICY,
  describeDependencyRefusal,
  readDependencySet,
} from "@bouts/dependencies";
import type { RunnerConfig } from "../config.ts";
import { readRootFiles } from "../deps/submission.ts";
import { resolveAdvisorySource } from "./dependencies.ts";
import { resolveSemgrepCoreBin, scanSubmission, type ScanOptions } from "./index.ts";
import { computeSecurityScore, CRITICAL_FINAL_SCORE_CAP } from "./severity.ts";

const USAGE = "usage: npm run scan -- <dir> [--json] [--runtime node|python]";

async function main(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  const runtimeIdx = argv.indexOf("--runtime");
  const runtime = runtimeIdx >= 0 ? argv[runtimeIdx + 1] : "node";
  const positional = argv.filter(
    (a, i) => !a.startsWith("--") && (runtimeIdx < 0 || i !== runtimeIdx + 1),
  );
  if (positional.length !== 1 || (runtime !== "node" && runtime !== "python")) {
    console.error(USAGE);
    return 2;
  }
  const dir = path.resolve(positional[0]!);
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
  } catch {
    console.error(`scan: ${dir} is not a directory\n${USAGE}`);
    return 2;
  }
  const config = loadRunnerConfigOrExit();
  const report = await scanSubmission(dir, {
    runtime,
    semgrepCoreBin: resolveSemgrepCoreBin(config),
    dependencies: await readFolderDependencies(dir, config),
  });
  const security = report.status === "unavailable" ? null : computeSecurityScore(report.findings);
  if (json) {
    console.log(JSON.stringify({ ...report, security }, null, 2));
  } else {
    console.log(renderText(dir, report, security));
  }
  return report.status === "unavailable" ? 1 : 0;
}

/**
 * What the folder's lockfile resolves, for the dependency check; a folder with no lockfile
 * resolves nothing (measured: none vulnerable), one whose lockfile is refused is not measured.
 */
async function readFolderDependencies(
  dir: string,
  config: RunnerConfig,
): Promise<NonNullable<ScanOptions["dependencies"]>> {
  const source = await resolveAdvisorySource(config);
  const policy = DEFAULT_DEPENDENCY_POLICY;
  const files = readRootFiles(dir, policy);
  if (!files.ok)
    return { lockfile: null, packages: undefined, source, refused: files.error.detail };
  const set = readDependencySet(files.value, policy);
  if (!set.ok)
    return {
      lockfile: null,
      packages: undefined,
      source,
      refused: set.error.map(describeDependencyRefusal).join("; "),
    };
  return { lockfile: set.value?.lockfile ?? null, packages: set.value?.packages ?? null, source };
}

function renderText(
  dir: string,
  report: ScanReport,
  security: ReturnType<typeof computeSecurityScore> | null,
): string {
  const lines = [`scan of ${dir}: ${report.status} in ${report.durationMs} ms`];
  for (const t of report.tools) {
    lines.push(
      `  ${t.tool} ${t.version ?? ""}: ${t.status}${t.status === "ok" ? "" : ` (${t.detail})`}`,
    );
  }
  lines.push("", report.findings.length ? "findings:" : "findings: none");
  for (const f of report.findings) {
    lines.push(
      `  ${f.severity.toUpperCase().padEnd(8)} ${(f.cwe ?? "-").padEnd(8)} ${f.file}:${f.line}  ${f.rule} [${f.tool}]`,
      `           ${f.message}`,
    );
  }
  if (report.skipped.length) {
    lines.push("", "not scanned:");
    for (const s of report.skipped) lines.push(`  ${s.file}: ${s.reason}`);
  }
  if (report.notMeasured.length) {
    lines.push("", "not measured:");
    for (const n of report.notMeasured) lines.push(`  ${n.check}: ${n.reason}`);
  }
  lines.push("");
  if (!security) {
    lines.push("security score: not available (a scanner failed; the scan is not clean)");
  } else {
    const c = security.counts;
    lines.push(
      `security score: ${security.score} = 100 - 25x${c.critical} critical - 15x${c.high} high - 5x${c.medium} medium - 1x${c.low} low (floor 0)`,
    );
    lines.push(
      security.finalScoreCap === null
        ? "final-score cap: none (no critical finding)"
        : `final-score cap: ${CRITICAL_FINAL_SCORE_CAP} (a critical finding caps the final score at ${CRITICAL_FINAL_SCORE_CAP})`,
    );
    if (report.status === "partial") {
      lines.push(
        "note: some files or dynamically loaded code were not scanned (listed above); the score covers only what was scanned",
      );
    }
  }
  return lines.join("\n");
}

process.exitCode = await main(process.argv.slice(2));
