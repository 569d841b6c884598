/**
 * @module runner/scan/advisories/severity
 * An advisory's place in the scoring spec's four buckets (docs/design.md §4: a known-vulnerable
 * dependency takes "its advisory's severity"): its CWE through the engine's `CWE_SEVERITY` when
 * the table places one, else its CVSS v3 base score by the usual bands, else `medium`, the
 * default for an unscored advisory. Invariant: the CWE table is imported, never copied.
 */
import { createRequire } from "node:module";
import type { Severity } from "@bouts/contracts";
import type * as CvssCalculator from "ae-cvss-calculator";
import { CWE_SEVERITY } from "../severity.ts";
import type { Cvss } from "./model.ts";

// The calculator ships one webpack bundle whose named exports Node's ESM loader cannot see.
const cvssLib = createRequire(import.meta.url)("ae-cvss-calculator") as typeof CvssCalculator;

/** The severity of an advisory that has neither a placed CWE nor a usable CVSS v3 score. */
export const UNSCORED_ADVISORY_SEVERITY: Severity = "medium";

const RANK: Record<Severity, number> = { critical: 3, high: 2, medium: 1, low: 0 };

/** A full CVSS v3.0/v3.1 base vector (temporal and environmental metrics may follow). */
const CVSS3_BASE =
  /^CVSS:3\.[01]\/AV:[NALP]\/AC:[LH]\/PR:[NLH]\/UI:[NR]\/S:[UC]\/C:[NLH]\/I:[NLH]\/A:[NLH](?:\/[A-Za-z]{1,3}:[A-Za-z])*$/;

/** How a severity was decided, for the finding's message and the docs' table. */
export interface AdvisorySeverity {
  severity: Severity;
  /** The CWE the finding carries: the placing one, else the advisory's first, else null. */
  cwe: string | null;
  basis: "cwe" | "cvss" | "default";
  /** The CVSS v3 base score used (given, or computed from the vector), or null. */
  score: number | null;
}

/**
 * Places an advisory in a bucket. CWEs first (the worst one the table places); then the CVSS v3
 * base score, given or computed from its vector (≥ 9.0 critical, ≥ 7.0 high, ≥ 4.0 medium,
 * > 0 low; 0.0, CVSS's "none", places nothing); else `UNSCORED_ADVISORY_SEVERITY`.
 * @example
 * resolveAdvisorySeverity({ cwes: ["CWE-1321"], cvss: { score: 5.6 } }) // critical, by its CWE
 * resolveAdvisorySeverity({ cvss: { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" } })
 * // → { severity: "critical", cwe: null, basis: "cvss", score: 9.8 }
 */
export function resolveAdvisorySeverity(advisory: {
  cwes?: readonly string[] | undefined;
  cvss?: Cvss | undefined;
}): AdvisorySeverity {
  const cwes = advisory.cwes ?? [];
  let placed: { cwe: string; severity: Severity } | null = null;
  for (const cwe of cwes) {
    const severity = Object.hasOwn(CWE_SEVERITY, cwe) ? CWE_SEVERITY[cwe] : undefined;
    if (severity !== undefined && (placed === null || RANK[severity] > RANK[placed.severity]))
      placed = { cwe, severity };
  }
  const score = resolveCvssScore(advisory.cvss);
  if (placed) return { ...placed, basis: "cwe", score };
  const cwe = cwes[0] ?? null;
  const banded = score === null ? null : bandOf(score);
  if (banded) return { severity: banded, cwe, basis: "cvss", score };
  return { severity: UNSCORED_ADVISORY_SEVERITY, cwe, basis: "default", score };
}

/** The CVSS v3 qualitative band of a base score; null for 0.0 ("none") or out of range. */
export function bandOf(score: number): Severity | null {
  if (!(score > 0 && score <= 10)) return null;
  if (score >= 9) return "critical";
  if (score >= 7) return "high";
  if (score >= 4) return "medium";
  return "low";
}

/** The given base score, else the one computed from a full v3 base vector, else null. */
export function resolveCvssScore(cvss: Cvss | undefined): number | null {
  if (cvss === undefined) return null;
  if (typeof cvss.score === "number" && Number.isFinite(cvss.score)) return cvss.score;
  return cvss.vector === undefined ? null : computeCvss3BaseScore(cvss.vector);
}

/** The CVSS v3.0/v3.1 base score of `vector`, or null unless it is a full base vector. */
export function computeCvss3BaseScore(vector: string): number | null {
  if (!CVSS3_BASE.test(vector)) return null;
  const names = vector
    .split("/")
    .slice(1)
    .map((part) => part.split(":")[0]);
  if (new Set(names).size !== names.length) return null; // a metric given twice
  const parsed = vector.startsWith("CVSS:3.0/")
    ? new cvssLib.Cvss3P0(vector)
    : new cvssLib.Cvss3P1(vector);
  if (!parsed.isBaseFullyDefined()) return null;
  const base = parsed.calculateScores().base;
  return typeof base === "number" && Number.isFinite(base) ? base : null;
}
