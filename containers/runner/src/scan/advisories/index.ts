/**
 * @module runner/scan/advisories
 * Known-vulnerable dependencies: the shipped advisory snapshot, the live OSV source, matching by
 * each ecosystem's version rules and the severity of a match (docs/dependencies.md, "Advisories").
 * Invariant: no source, no verdict: nothing here ever turns "no advisories read" into "clean".
 */
export { buildAdvisoryFindings, DEPS_TOOL } from "./findings.ts";
export {
  DEFAULT_SNAPSHOT_FILE,
  loadShippedSnapshot,
  parseAdvisorySnapshot,
  readAdvisorySnapshot,
} from "./load.ts";
export type { SnapshotError } from "./load.ts";
export { indexAdvisories, matchAdvisories, mergeAliasedMatches, uniquePackages } from "./match.ts";
export { ADVISORY_ECOSYSTEMS, AdvisorySnapshotSchema } from "./model.ts";
export type {
  Advisory,
  AdvisoryEcosystem,
  AdvisoryMatch,
  AdvisoryPackage,
  AdvisorySnapshot,
  AffectedPackage,
  SnapshotSource,
} from "./model.ts";
export { DEFAULT_OSV_ENDPOINT, DEFAULT_OSV_LIMITS, queryOsv } from "./osv.ts";
export type { OsvError, OsvLimits, OsvQueryOptions } from "./osv.ts";
export { readOsvRecord } from "./osv-record.ts";
export {
  computeCvss3BaseScore,
  resolveAdvisorySeverity,
  UNSCORED_ADVISORY_SEVERITY,
} from "./severity.ts";
export type { AdvisorySeverity } from "./severity.ts";
export { isValidVersion, normalizePypiName, resolveAffected } from "./versions.ts";
