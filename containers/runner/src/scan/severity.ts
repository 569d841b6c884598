/**
 * @module runner/scan/severity
 * The seed's CWE → severity table (DESIGN.md "Decisions on the seeds" §4) and the security
 * score it implies. One table, one file: the scoring engine's copy is authoritative and this one
 * is reconciled with it. Pure: no I/O.
 */
import type { Finding, Severity } from "@bouts/contracts";

/** Severity of every CWE a rule may report. A rule whose CWE is missing here is a bug. */
export const CWE_SEVERITY: Readonly<Record<string, Severity>> = {
  "CWE-89": "critical", // SQL injection
  "CWE-798": "critical", // hardcoded credentials
  "CWE-287": "critical", // authentication bypass
  "CWE-78": "critical", // command injection (DESIGN.md §4: placed with the criticals)
  "CWE-79": "high", // XSS
  "CWE-22": "high", // path traversal
  "CWE-502": "high", // insecure deserialization
  "CWE-327": "high", // weak crypto for passwords (DESIGN.md §4)
  "CWE-328": "high",
  "CWE-916": "high",
  "CWE-338": "medium", // insecure randomness
  "CWE-209": "medium", // error details in responses
  "CWE-352": "medium", // missing CSRF protection
  "CWE-693": "low", // missing security headers
  "CWE-532": "low", // verbose production logging
};

/** Points a finding of each severity costs (engineering seed, Component 5). */
export const SEVERITY_DEDUCTION: Readonly<Record<Severity, number>> = {
  critical: 25,
  high: 15,
  medium: 5,
  low: 1,
};

/** The final-score cap a critical finding imposes (DESIGN.md §3). */
export const CRITICAL_FINAL_SCORE_CAP = 75;

/** Severity of a CWE per the table, or null when the table does not place it. */
export function resolveSeverity(cwe: string | null): Severity | null {
  if (cwe === null) return null;
  return CWE_SEVERITY[cwe] ?? null;
}

export interface SecurityScore {
  /** 100 − 25·critical − 15·high − 5·medium − 1·low, floored at 0. */
  score: number;
  counts: Record<Severity, number>;
  /** 75 when any critical finding exists (the final score may not exceed it), else null. */
  finalScoreCap: number | null;
}

/** Computes the seed's security score of a list of findings. */
export function computeSecurityScore(
  findings: readonly Pick<Finding, "severity">[],
): SecurityScore {
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0 };
  for (const f of findings) counts[f.severity] += 1;
  const deducted =
    counts.critical * SEVERITY_DEDUCTION.critical +
    counts.high * SEVERITY_DEDUCTION.high +
    counts.medium * SEVERITY_DEDUCTION.medium +
    counts.low * SEVERITY_DEDUCTION.low;
  return {
    score: Math.max(0, 100 - deducted),
    counts,
    finalScoreCap: counts.critical > 0 ? CRITICAL_FINAL_SCORE_CAP : null,
  };
}
