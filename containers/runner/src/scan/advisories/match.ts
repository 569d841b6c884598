/**
 * @module runner/scan/advisories/match
 * Matches resolved packages against a set of advisories by each ecosystem's version rules
 * (versions.ts), and merges the advisories that name each other through aliases (the same
 * vulnerability published as a PYSEC, a GHSA and a CVE is one finding). Invariants: the result
 * is in a fixed order (package, then advisory id) whatever the input order; each package
 * version is matched once however often it is listed. Pure.
 */
import type {
  Advisory,
  AdvisoryEcosystem,
  AdvisoryMatch,
  AdvisoryPackage,
  AdvisorySnapshot,
} from "./model.ts";
import { normalizePackageName, resolveAffected } from "./versions.ts";

/** Advisories by ecosystem and compared package name. */
export type AdvisoryIndex = ReadonlyMap<string, readonly Advisory[]>;

const keyOf = (ecosystem: AdvisoryEcosystem, name: string) =>
  `${ecosystem}\u0000${normalizePackageName(ecosystem, name)}`;

const indexes = new WeakMap<readonly Advisory[], AdvisoryIndex>();

/** Indexes advisories by the packages they affect; memoized per advisory array. */
export function indexAdvisories(advisories: readonly Advisory[]): AdvisoryIndex {
  const cached = indexes.get(advisories);
  if (cached) return cached;
  const index = new Map<string, Advisory[]>();
  for (const a of advisories) {
    const keys = new Set(a.affected.map((e) => keyOf(e.ecosystem, e.package)));
    for (const k of keys) {
      const list = index.get(k);
      if (list) list.push(a);
      else index.set(k, [a]);
    }
  }
  indexes.set(advisories, index);
  return index;
}

/**
 * Every (package, advisory) pair where the package's version is affected, aliases merged.
 * @example
 * matchAdvisories([{ ecosystem: "npm", name: "lodash", version: "4.17.4" }], snapshot)
 * // → [{ package, advisory: { id: "NSWG-ECO-368", … }, fixed: ">=4.17.5", duplicates: [] }, …]
 */
export function matchAdvisories(
  packages: readonly AdvisoryPackage[],
  snapshot: Pick<AdvisorySnapshot, "advisories">,
): AdvisoryMatch[] {
  const index = indexAdvisories(snapshot.advisories);
  const matches: AdvisoryMatch[] = [];
  for (const pkg of uniquePackages(packages)) {
    for (const advisory of index.get(keyOf(pkg.ecosystem, pkg.name)) ?? []) {
      const verdict = affectedBy(advisory, pkg);
      if (verdict.affected)
        matches.push({ package: pkg, advisory, fixed: verdict.fixed, duplicates: [] });
    }
  }
  return mergeAliasedMatches(matches);
}

/** What `advisory` says of `pkg`'s version, over every entry naming the package. */
export function affectedBy(
  advisory: Advisory,
  pkg: AdvisoryPackage,
): { affected: boolean; fixed: string | null } {
  const name = normalizePackageName(pkg.ecosystem, pkg.name);
  let fixed: string | null = null;
  let affected = false;
  for (const entry of advisory.affected) {
    if (entry.ecosystem !== pkg.ecosystem || entry.package !== name) continue;
    const v = resolveAffected(entry, pkg.version);
    if (v.affected) {
      affected = true;
      fixed ??= v.fixed;
    }
  }
  return { affected, fixed };
}

/** Packages listed once each (ecosystem, compared name, version), in a fixed order. */
export function uniquePackages(packages: readonly AdvisoryPackage[]): AdvisoryPackage[] {
  const seen = new Map<string, AdvisoryPackage>();
  for (const p of packages) {
    const k = `${keyOf(p.ecosystem, p.name)}\u0000${p.version}`;
    if (!seen.has(k)) seen.set(k, p);
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
}

/**
 * Merges the matches of one package whose advisories share an id or an alias, keeping the
 * lowest id as the finding's and the others in `duplicates`. Sorted by package, then id.
 */
export function mergeAliasedMatches(matches: readonly AdvisoryMatch[]): AdvisoryMatch[] {
  const byPackage = new Map<string, AdvisoryMatch[]>();
  for (const m of matches) {
    const k = `${keyOf(m.package.ecosystem, m.package.name)}\u0000${m.package.version}`;
    const list = byPackage.get(k);
    if (list) list.push(m);
    else byPackage.set(k, [m]);
  }
  const merged: AdvisoryMatch[] = [];
  for (const k of [...byPackage.keys()].sort()) {
    const group = [...byPackage.get(k)!].sort((a, b) => compareIds(a.advisory.id, b.advisory.id));
    // Union by shared names: an id or alias seen before joins its owner's group.
    const owner = new Map<string, number>();
    const parent = group.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    group.forEach((m, i) => {
      for (const name of [m.advisory.id, ...(m.advisory.aliases ?? [])]) {
        const j = owner.get(name);
        if (j === undefined) owner.set(name, i);
        else parent[find(i)] = find(j);
      }
    });
    const roots = new Map<number, AdvisoryMatch>();
    group.forEach((m, i) => {
      const r = find(i);
      const head = roots.get(r);
      if (!head) roots.set(r, { ...m, duplicates: [...m.duplicates] });
      else {
        head.duplicates.push(m.advisory, ...m.duplicates);
        head.fixed ??= m.fixed;
      }
    });
    merged.push(...[...roots.values()].sort((a, b) => compareIds(a.advisory.id, b.advisory.id)));
  }
  return merged;
}

/** Plain code-unit order, the same on every machine (no locale). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
