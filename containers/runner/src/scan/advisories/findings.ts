/**
 * @module runner/scan/advisories/findings
 * Turns advisory matches into the scan's findings (`Finding`, tool "deps"): one per package
 * version and vulnerability (aliases already merged), placed by `resolveAdvisorySeverity`,
 * pointing at the lockfile (line 0: the whole file). Invariant: every field fits
 * `FindingSchema`'s bounds; the order is fixed (worst first, then package, then id). Pure.
 */
import type { Finding, Severity } from "@bouts/contracts";
import type { Advisory, AdvisoryMatch } from "./model.ts";
import { resolveAdvisorySeverity } from "./severity.ts";
import type { AdvisorySeverity } from "./severity.ts";

/** The `tool` of every dependency finding. */
export const DEPS_TOOL = "deps";

const RANK: Record<Severity, number> = { critical: 3, high: 2, medium: 1, low: 0 };
const MAX_MESSAGE = 2000;
const MAX_RULE = 200;

/** One finding per match, against `lockfile` (a path relative to the submission). */
export function buildAdvisoryFindings(
  matches: readonly AdvisoryMatch[],
  lockfile: string,
): Finding[] {
  const rows = matches.map((m) => {
    const placed = worstSeverity([m.advisory, ...m.duplicates]);
    const finding: Finding = {
      tool: DEPS_TOOL,
      rule: m.advisory.id.slice(0, MAX_RULE),
      cwe: placed.cwe,
      severity: placed.severity,
      file: lockfile.slice(0, 1024),
      line: 0,
      message: describeMatch(m, placed),
    };
    return { finding, key: [m.package.name, m.package.version, m.advisory.id] };
  });
  rows.sort((a, b) => {
    const bySeverity = RANK[b.finding.severity] - RANK[a.finding.severity];
    if (bySeverity !== 0) return bySeverity;
    for (let i = 0; i < a.key.length; i++) {
      const [x, y] = [a.key[i]!, b.key[i]!];
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  return rows.map((r) => r.finding);
}

/** The worst placement among advisories that name one vulnerability (the first wins ties). */
function worstSeverity(advisories: readonly Advisory[]): AdvisorySeverity {
  let worst = resolveAdvisorySeverity(advisories[0]!);
  for (const a of advisories.slice(1)) {
    const s = resolveAdvisorySeverity(a);
    if (RANK[s.severity] > RANK[worst.severity]) worst = s;
  }
  return worst;
}

/** "pkg@1.0.0: ID (aliases): summary; fixed in X; severity from …", at most 2000 characters. */
function describeMatch(m: AdvisoryMatch, placed: AdvisorySeverity): string {
  const ids = new Set<string>();
  for (const a of [m.advisory, ...m.duplicates])
    for (const name of [a.id, ...(a.aliases ?? [])]) ids.add(name);
  ids.delete(m.advisory.id);
  const aliases = [...ids].sort();
  const basis =
    placed.basis === "cwe"
      ? `its CWE (${placed.cwe})`
      : placed.basis === "cvss"
        ? `its CVSS v3 base score ${placed.score}`
        : "no CWE the table places and no CVSS v3 score: the default for an unscored advisory";
  const parts = [
    `${m.package.name}@${m.package.version}: known vulnerability ${m.advisory.id}` +
      (aliases.length ? ` (${aliases.join(", ")})` : ""),
    m.advisory.summary || "no summary",
    m.fixed === null
      ? "no fixed version known"
      : /^\d/.test(m.fixed)
        ? `fixed in ${m.fixed}`
        : `fixed in versions ${m.fixed}`,
    `severity from ${basis}`,
  ];
  const text = parts.join("; ");
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}
