/**
 * @module runner/scan/severity
 * The engineering spec's CWE → severity table (docs/design.md §4) and the security
 * score it implies, from the scoring engine's own tables. Pure: no I/O.
 */
import type { Finding, Severity } from "@bouts/contracts";
import {
  CRITICAL_FINDING_CAP,
  CWE_SEVERITY as ENGINE_CWE_SEVERITY,
  SECURITY_DEDUCTIONS,
} from "@bouts/scoring";

/**
 * The engine's tables, imported rather than copied so the scanner and the score can never
 * disagree: CWE → severity, the deduction per severity and the critical-finding cap.
 */
export const CWE_SEVERITY: Readonly<Record<string, Severity>> = ENGINE_CWE_SEVERITY;
export const SEVERITY_DEDUCTION: Readonly<Record<Severity, number>> = SECURITY_DEDUCTIONS;
export const CRITICAL_FINAL_SCORE_CAP = CRITICAL_FINDING_CAP;

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

/** Computes the engineering spec's security score of a list of findings. */
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
