/**
 * @module runner/scan/dependencies
 * Known-vulnerable dependencies: the resolved packages of a submission's lockfile checked
 * against advisories, live from OSV when configured, else from the snapshot shipped with the
 * runner (advisories/). Invariants: never clean without an advisory source or without packages
 * (the check is then "not measured", naming why); a failed live source falls back to the
 * snapshot and says so; a version its ecosystem cannot parse is listed unchecked, never clean.
 */
import { access } from "node:fs/promises";
import path from "node:path";
import type { Finding, ScanAdvisories } from "@bouts/contracts";
import {
  buildAdvisoryFindings,
  isValidVersion,
  loadShippedSnapshot,
  matchAdvisories,
  queryOsv,
  uniquePackages,
} from "./advisories/index.ts";
import type { AdvisoryPackage, AdvisorySnapshot } from "./advisories/index.ts";

const LOCKFILES = [
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "requirements.txt",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
];

/** A "not measured" entry of the scan report. */
export interface DependencyNotMeasured {
  check: string;
  reason: string;
}

/** Why the dependency check was not measured for the submission in `dir` (no advisory source). */
export async function describeDependencyCheck(
  dir: string,
  runtime: "node" | "python",
): Promise<DependencyNotMeasured> {
  const found: string[] = [];
  for (const name of LOCKFILES) {
    try {
      await access(path.join(dir, name));
      found.push(name);
    } catch {
      // not there
    }
  }
  const what = found.length
    ? `${found.join(", ")} not checked`
    : `no lockfile in the submission (the ${runtime} challenge's own dependencies apply)`;
  return {
    check: "dependencies",
    reason: `no advisory source is available (scans run offline and no advisory database ships with the runner): ${what}`,
  };
}

/**
 * Where advisories come from. `live`: OSV's API through `fetch`, with the snapshot (if it
 * loaded) as the fallback; `snapshot`: the shipped snapshot alone.
 */
export type AdvisorySource =
  | { kind: "snapshot"; snapshot: AdvisorySnapshot }
  | {
      kind: "live";
      fetch: typeof fetch;
      endpoint: string;
      timeoutMs?: number;
      snapshot: AdvisorySnapshot | null;
    };

/** Where a measured check's advisories came from (`ScanReport.advisories` is built from it). */
export interface AdvisoryProvenance {
  source: "osv-api" | "snapshot";
  /** Snapshot: its newest record's modified time; osv-api: when OSV was asked. */
  asOf: string;
  /** The snapshot's sources as `id@commit` (snapshot only). */
  snapshotSources?: string[];
  checkedPackages: number;
  /** Why the configured live source was not used (its failure or timeout). */
  fallback?: string;
}

/** A package whose version its ecosystem cannot parse: not checked, and said so. */
export interface UncheckedPackage {
  name: string;
  version: string;
  reason: string;
}

export type DependencyCheckResult =
  | {
      measured: true;
      findings: Finding[];
      provenance: AdvisoryProvenance;
      unchecked: UncheckedPackage[];
    }
  | { measured: false; notMeasured: DependencyNotMeasured };

export interface DependencyCheckOptions {
  /** The lockfile's resolved packages; undefined when no lockfile was read. */
  packages: readonly AdvisoryPackage[] | undefined;
  /** The lockfile the packages came from, relative to the submission (the findings' file). */
  lockfile: string;
  /** The advisory source; null when there is none (the check is then not measured). */
  source: AdvisorySource | null;
  signal?: AbortSignal;
  /** The clock for the live source's as-of time (default: the system clock). */
  now?: () => Date;
}

/**
 * Checks resolved packages against advisories: findings (tool "deps", one per vulnerable
 * package version) and where the advisories came from.
 * @example
 * await checkDependencies({ packages, lockfile: "package-lock.json",
 *   source: { kind: "snapshot", snapshot } })
 */
export async function checkDependencies(
  options: DependencyCheckOptions,
): Promise<DependencyCheckResult> {
  const { packages, lockfile, source } = options;
  if (source === null)
    return notMeasured(`no advisory source is available: ${lockfile} not checked`);
  if (packages === undefined || packages.length === 0)
    return notMeasured(
      packages === undefined
        ? `no resolved packages were given: ${lockfile} not read`
        : `${lockfile} resolves no packages to check`,
    );
  const distinct = uniquePackages(packages);
  const unchecked = distinct
    .filter((p) => !isValidVersion(p.ecosystem, p.version))
    .map((p) => ({
      name: p.name,
      version: p.version,
      reason: `not a version ${p.ecosystem === "npm" ? "semver" : "PEP 440"} can order: only advisories listing it exactly were checked`,
    }));
  const checkedPackages = distinct.length - unchecked.length;
  let fallback: string | undefined;
  if (source.kind === "live") {
    const live = await queryOsv(packages, {
      fetch: source.fetch,
      endpoint: source.endpoint,
      ...(source.timeoutMs === undefined ? {} : { timeoutMs: source.timeoutMs }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (live.ok)
      return {
        measured: true,
        findings: buildAdvisoryFindings(live.value, lockfile),
        provenance: {
          source: "osv-api",
          asOf: (options.now ?? (() => new Date()))().toISOString(),
          checkedPackages,
        },
        unchecked,
      };
    fallback = `the live source failed (${live.error.reason}: ${live.error.detail}); the shipped snapshot was used`;
    if (source.snapshot === null)
      return notMeasured(
        `the live advisory source failed (${live.error.reason}: ${live.error.detail}) and no snapshot is available: ${lockfile} not checked`,
      );
  }
  const snapshot = source.snapshot!;
  return {
    measured: true,
    findings: buildAdvisoryFindings(matchAdvisories(packages, snapshot), lockfile),
    provenance: {
      source: "snapshot",
      asOf: snapshot.asOf,
      snapshotSources: snapshot.sources.map((s) =>
        s.commit ? `${s.id}@${s.commit.slice(0, 12)}` : s.id,
      ),
      checkedPackages,
      ...(fallback === undefined ? {} : { fallback: fallback.slice(0, 500) }),
    },
    unchecked,
  };
}

/** The scan report's `advisories` field for a measured check. */
export function toScanAdvisories(p: AdvisoryProvenance): ScanAdvisories {
  return {
    source: p.source,
    asOf: p.asOf,
    packages: p.checkedPackages,
    ...(p.snapshotSources ? { sources: p.snapshotSources } : {}),
    ...(p.fallback === undefined ? {} : { fallback: p.fallback }),
  };
}

/**
 * The advisory source the runner's configuration asks for: live when an endpoint is set (with
 * the shipped snapshot as its fallback), else the shipped snapshot; null when neither can be
 * had (the snapshot failed to load and no endpoint is set).
 */
export async function resolveAdvisorySource(
  config: { ADVISORY_ENDPOINT?: string | undefined; ADVISORY_TIMEOUT_MS: number },
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<AdvisorySource | null> {
  const loaded = await loadShippedSnapshot();
  const snapshot = loaded.ok ? loaded.value : null;
  if (config.ADVISORY_ENDPOINT !== undefined)
    return {
      kind: "live",
      fetch: fetchImpl,
      endpoint: config.ADVISORY_ENDPOINT,
      timeoutMs: config.ADVISORY_TIMEOUT_MS,
      snapshot,
    };
  return snapshot === null ? null : { kind: "snapshot", snapshot };
}

function notMeasured(reason: string): DependencyCheckResult {
  return { measured: false, notMeasured: { check: "dependencies", reason: reason.slice(0, 500) } };
}
