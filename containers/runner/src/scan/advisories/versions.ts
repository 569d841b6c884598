/**
 * @module runner/scan/advisories/versions
 * Whether a version is affected, by each ecosystem's own rules: npm by semver (the `semver`
 * package), PyPI by PEP 440 (`@renovatebot/pep440`). OSV ranges are evaluated as the OSV schema
 * says: events sorted by version, `introduced` opens, `fixed` (exclusive) and `last_affected`
 * (inclusive) close, `introduced: "0"` is the start of time. Invariant: a version or a range
 * the ecosystem cannot parse never matches a range (only an exact `versions` entry). Pure.
 */
import * as pep440 from "@renovatebot/pep440";
import semver from "semver";
import type { AdvisoryEcosystem, AdvisoryRange, AffectedPackage, RangeEvent } from "./model.ts";

/** Longest version string either ecosystem is asked to parse (semver's own limit). */
export const MAX_VERSION_LENGTH = 256;

/** One ecosystem's ordering: parse, compare, equality. */
interface VersionScheme {
  valid(v: string): boolean;
  compare(a: string, b: string): number;
}

const SEMVER: VersionScheme = {
  valid: (v) => v.length <= MAX_VERSION_LENGTH && semver.valid(v) !== null,
  compare: (a, b) => semver.compare(a, b),
};

const PEP440: VersionScheme = {
  valid: (v) => v.length <= MAX_VERSION_LENGTH && pep440.valid(v) !== null,
  compare: (a, b) => pep440.compare(a, b),
};

/** The version ordering of `ecosystem`. */
function schemeOf(ecosystem: AdvisoryEcosystem): VersionScheme {
  return ecosystem === "npm" ? SEMVER : PEP440;
}

/** A PyPI project name as PEP 503 compares it: lower case, runs of `-_.` as one `-`. */
export function normalizePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** A package name as `ecosystem` compares it (npm names are compared exactly). */
export function normalizePackageName(ecosystem: AdvisoryEcosystem, name: string): string {
  return ecosystem === "PyPI" ? normalizePypiName(name) : name;
}

/** True when `version` is one `ecosystem` can order (so ranges can be checked). */
export function isValidVersion(ecosystem: AdvisoryEcosystem, version: string): boolean {
  return schemeOf(ecosystem).valid(version);
}

/** Is `version` affected per what the advisory says of this package, and what fixes it. */
export interface AffectedVerdict {
  affected: boolean;
  /** The lowest fixed version above `version` from the ranges, or the npm patched range. */
  fixed: string | null;
}

/**
 * Whether `version` of the package is affected by `entry`: listed in `versions`, inside one of
 * its OSV ranges, or (npm security WG records) satisfying its semver range string.
 * @example
 * resolveAffected({ ecosystem: "PyPI", package: "jinja2",
 *   ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.11.3" }] }] },
 *   "2.11.2") // → { affected: true, fixed: "2.11.3" }
 */
export function resolveAffected(entry: AffectedPackage, version: string): AffectedVerdict {
  const scheme = schemeOf(entry.ecosystem);
  const valid = scheme.valid(version);
  const fixed = valid ? lowestFixedAbove(entry.ranges ?? [], version, scheme) : null;
  const listed = (entry.versions ?? []).some((v) =>
    valid && scheme.valid(v) ? scheme.compare(v, version) === 0 : v === version,
  );
  if (listed) return { affected: true, fixed };
  if (!valid) return { affected: false, fixed: null };
  if (entry.semverRange !== undefined && entry.ecosystem === "npm")
    return {
      affected: satisfiesSemverRange(version, entry.semverRange),
      fixed: entry.patchedRange ?? null,
    };
  const affected = (entry.ranges ?? []).some((r) => inRange(r, version, scheme));
  return { affected, fixed };
}

/**
 * semver's own `satisfies`, with prereleases ordered as semver orders them (`4.17.5-beta` is
 * below `4.17.5`, so inside `<4.17.5`): a prerelease of an affected line is not reported clean.
 */
export function satisfiesSemverRange(version: string, range: string): boolean {
  if (semver.validRange(range) === null) return false;
  return semver.satisfies(version, range, { includePrerelease: true });
}

/** The version an event names, whatever its kind. */
function eventVersion(e: RangeEvent): string {
  if ("introduced" in e) return e.introduced;
  if ("fixed" in e) return e.fixed;
  if ("last_affected" in e) return e.last_affected;
  return e.limit;
}

/** Events in version order ("0" first); null when one names a version the scheme cannot parse. */
function sortedEvents(range: AdvisoryRange, scheme: VersionScheme): RangeEvent[] | null {
  for (const e of range.events) {
    const v = eventVersion(e);
    if (!(("introduced" in e && v === "0") || scheme.valid(v))) return null;
  }
  const key = (e: RangeEvent) => eventVersion(e);
  // Array.prototype.sort is stable: events at one version keep the record's order.
  return [...range.events].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    if (x === "0" || y === "0") return x === y ? 0 : x === "0" ? -1 : 1;
    return scheme.compare(x, y);
  });
}

/** The OSV schema's evaluation of one range (its "Evaluation" pseudo-code). */
function inRange(range: AdvisoryRange, version: string, scheme: VersionScheme): boolean {
  const events = sortedEvents(range, scheme);
  if (events === null) return false;
  let affected = false;
  for (const e of events) {
    if ("introduced" in e) {
      if (e.introduced === "0" || scheme.compare(version, e.introduced) >= 0) affected = true;
    } else if ("fixed" in e) {
      if (scheme.compare(version, e.fixed) >= 0) affected = false;
    } else if ("last_affected" in e) {
      if (scheme.compare(version, e.last_affected) > 0) affected = false;
    } else if (scheme.compare(version, e.limit) >= 0) {
      affected = false;
    }
  }
  return affected;
}

/** The lowest `fixed` event above `version` over all ranges the scheme can read, if any. */
function lowestFixedAbove(
  ranges: readonly AdvisoryRange[],
  version: string,
  scheme: VersionScheme,
): string | null {
  let best: string | null = null;
  for (const r of ranges)
    for (const e of r.events)
      if ("fixed" in e && scheme.valid(e.fixed) && scheme.compare(e.fixed, version) > 0)
        if (best === null || scheme.compare(e.fixed, best) < 0) best = e.fixed;
  return best;
}
