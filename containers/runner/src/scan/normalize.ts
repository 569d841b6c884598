/**
 * @module runner/scan/normalize
 * Turns the tools' raw findings into contract findings: original paths, the engineering spec's
 * severity, one finding per file + line + CWE across tools, in a stable order. Pure: no I/O.
 */
import type { Finding } from "@bouts/contracts";
import { SEVERITIES } from "@bouts/scoring";
import { resolveSeverity } from "./severity.ts";
import type { RawFinding } from "./tool.ts";

/** Tools in order of preference when two report the same file, line and CWE. */
const TOOL_ORDER = ["semgrep", "eslint"];

/**
 * Maps scratch paths back to submission paths, attaches severities and de-duplicates. A raw
 * finding whose CWE the table does not place is dropped and returned in `unplaced` (a rule bug).
 */
export function normalizeFindings(
  raw: readonly RawFinding[],
  fileOf: ReadonlyMap<string, string>,
): { findings: Finding[]; unplaced: RawFinding[] } {
  const unplaced: RawFinding[] = [];
  const byKey = new Map<string, { finding: Finding; alsoBy: string[] }>();
  const sorted = [...raw].sort(
    (a, b) => rank(a.tool) - rank(b.tool) || a.rule.localeCompare(b.rule),
  );
  for (const r of sorted) {
    const severity = resolveSeverity(r.cwe);
    const file = fileOf.get(r.scratchPath);
    if (!severity || file === undefined) {
      unplaced.push(r);
      continue;
    }
    const key = `${file}\u0000${r.line}\u0000${r.cwe}`;
    const seen = byKey.get(key);
    if (seen) {
      if (!seen.alsoBy.includes(`${r.tool}: ${r.rule}`)) seen.alsoBy.push(`${r.tool}: ${r.rule}`);
      continue;
    }
    byKey.set(key, {
      finding: {
        tool: r.tool,
        rule: r.rule.slice(0, 200),
        cwe: r.cwe,
        severity,
        file: file.slice(0, 1024),
        line: r.line,
        message: r.message,
      },
      alsoBy: [],
    });
  }
  const findings = [...byKey.values()].map(({ finding, alsoBy }) => ({
    ...finding,
    message: (alsoBy.length
      ? `${finding.message} (also reported by ${alsoBy.join(", ")})`
      : finding.message
    ).slice(0, 2000),
  }));
  findings.sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      a.rule.localeCompare(b.rule),
  );
  return { findings, unplaced };
}

function rank(tool: string): number {
  const i = TOOL_ORDER.indexOf(tool);
  return i < 0 ? TOOL_ORDER.length : i;
}
