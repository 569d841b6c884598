/**
 * @module dependencies/uv-lock
 * Reads uv's lockfile (uv.lock, TOML, `version = 1`) into the releases it pins: every package
 * but the project itself (`source = { virtual = "." }` or `{ editable = "." }`) must come from
 * a policy index, at a PEP 440 version, with a sha256 on each of its files (sdist and wheels),
 * each file on a policy file host. Git, URL, path, directory and other editable sources are
 * refused. Direct and dev are read from the project's own entry. Pure: no I/O, no throw.
 */
import { err, ok, type Result } from "@bouts/result";
import { parse } from "smol-toml";
import { isPythonName, isPythonVersion, normalizePythonName } from "./pep.ts";
import {
  invalid,
  invalidCount,
  invalidSize,
  invalidTyposquat,
  type DependencyRefusal,
} from "./refusal.ts";
import { countUtf8Bytes, isRecord, quote } from "./text.ts";
import { findTyposquatTarget } from "./typosquat.ts";
import {
  byNameAndVersion,
  type DependencyPolicy,
  type DependencySet,
  type ResolvedPackage,
} from "./types.ts";

const FILE = "uv.lock";
const SHA256 = /^sha256:[0-9a-f]{64}$/;
// Inline tables and arrays nest two or three deep in a real lock; anything deeper is not one.
const MAX_TOML_DEPTH = 32;
const SOURCE_KINDS = ["registry", "git", "url", "path", "directory", "editable", "virtual"];

/** A package table of the lock, its fields type-checked as they are read. */
type PackageTable = Record<string, unknown>;

/**
 * Reads a uv.lock into the releases it pins, or every refusal, each naming the project.
 * @example
 * const set = readUvLock(uvLockText, DEFAULT_DEPENDENCY_POLICY);
 */
export function readUvLock(
  text: string,
  policy: DependencyPolicy,
): Result<DependencySet, DependencyRefusal[]> {
  const bytes = countUtf8Bytes(text);
  if (bytes > policy.maxLockBytes) return err([invalidSize(FILE, bytes, policy.maxLockBytes)]);
  let doc: Record<string, unknown>;
  try {
    doc = parse(text, { maxDepth: MAX_TOML_DEPTH, unsafeKeyBehaviour: "throw" });
  } catch (e) {
    const why = e instanceof Error ? e.message.split("\n")[0] : "not TOML";
    return err([invalid("unreadable", FILE, null, `not TOML: ${why}`)]);
  }
  if (doc.version !== 1)
    return err([
      invalid(
        "unsupported-lockfile",
        FILE,
        null,
        `uv.lock version ${quote(doc.version ?? null)} is not read: only version 1`,
      ),
    ]);
  const tables = doc.package ?? [];
  if (!Array.isArray(tables) || !tables.every(isRecord))
    return err([invalid("unreadable", FILE, null, "package is not an array of tables")]);

  const roots = tables.filter(isProjectRoot);
  const pinned = tables.filter((t) => !isProjectRoot(t));
  if (pinned.length > policy.maxPackages)
    return err([invalidCount(FILE, pinned.length, policy.maxPackages)]);
  const { direct, production } = readGraph(tables, roots);

  const refusals: DependencyRefusal[] = [];
  const packages: ResolvedPackage[] = [];
  for (const table of pinned) {
    const read = readPackage(table, policy);
    if (!read.ok) {
      refusals.push(...read.error);
      continue;
    }
    const { name } = read.value;
    packages.push({
      ...read.value,
      direct: direct.has(name),
      dev: roots.length > 0 && !production.has(name),
    });
  }
  if (refusals.length > 0) return err(refusals);
  packages.sort(byNameAndVersion);
  return ok({ ecosystem: "PyPI", lockfile: FILE, packages });
}

/** The project the lock is for: its own entry, sourced from the lock's folder itself. */
function isProjectRoot(t: PackageTable): boolean {
  const source = t.source;
  return isRecord(source) && (source.virtual === "." || source.editable === ".");
}

/** The names a table's dependency list holds (`[{ name = "idna" }, …]`), normalized. */
function namesOf(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((d) =>
    isRecord(d) && typeof d.name === "string" ? [normalizePythonName(d.name)] : [],
  );
}

/** The names every group of a table of groups holds (`optional-dependencies`, `dev-dependencies`). */
function groupNamesOf(groups: unknown): string[] {
  return isRecord(groups) ? Object.values(groups).flatMap(namesOf) : [];
}

/**
 * The project's direct dependencies (its runtime, optional and dev groups) and every name its
 * runtime and optional dependencies reach: a package reached only through a dev group is dev.
 */
function readGraph(
  tables: readonly PackageTable[],
  roots: readonly PackageTable[],
): { direct: ReadonlySet<string>; production: ReadonlySet<string> } {
  const edges = new Map<string, string[]>();
  for (const t of tables) {
    if (typeof t.name !== "string") continue;
    const name = normalizePythonName(t.name);
    const next = [...namesOf(t.dependencies), ...groupNamesOf(t["optional-dependencies"])];
    edges.set(name, [...(edges.get(name) ?? []), ...next]);
  }
  const direct = new Set<string>();
  const queue: string[] = [];
  for (const root of roots) {
    const runtime = [...namesOf(root.dependencies), ...groupNamesOf(root["optional-dependencies"])];
    queue.push(...runtime);
    for (const n of [...runtime, ...groupNamesOf(root["dev-dependencies"])]) direct.add(n);
  }
  const production = new Set<string>();
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (production.has(name)) continue;
    production.add(name);
    queue.push(...(edges.get(name) ?? []));
  }
  return { direct, production };
}

/** One package table as a release, or every rule it breaks (direct and dev are set later). */
function readPackage(
  t: PackageTable,
  policy: DependencyPolicy,
): Result<ResolvedPackage, DependencyRefusal[]> {
  if (typeof t.name !== "string" || !isPythonName(t.name))
    return err([
      invalid(
        "invalid-name",
        FILE,
        typeof t.name === "string" ? t.name : null,
        `${quote(t.name ?? null)} is not a PEP 508 project name`,
      ),
    ]);
  const name = normalizePythonName(t.name);
  const bad: DependencyRefusal[] = [];
  const version = t.version;
  if (typeof version !== "string" || !isPythonVersion(version))
    bad.push(
      invalid(
        "inexact-version",
        FILE,
        name,
        version === undefined
          ? `${name} has no version`
          : `${name}'s version ${quote(version)} is not a PEP 440 version`,
      ),
    );

  const source = t.source;
  const kind = isRecord(source) ? SOURCE_KINDS.find((k) => Object.hasOwn(source, k)) : undefined;
  if (!isRecord(source) || kind === undefined) {
    bad.push(invalid("unreadable", FILE, name, `${name} has no source uv knows`));
    return err(bad);
  }
  if (kind !== "registry") {
    bad.push(
      invalid(
        "non-registry-source",
        FILE,
        name,
        `${name} comes from ${kind} ${quote(source[kind])}, not a registry`,
      ),
    );
    return err(bad);
  }
  const index = source.registry;
  const indexes = policy.registries.PyPI;
  if (typeof index !== "string" || !indexes.some((i) => sameIndex(i, index))) {
    bad.push(
      invalid(
        "non-registry-source",
        FILE,
        name,
        `${name} comes from the index ${quote(index)}, not ${indexes.join(", ")}`,
      ),
    );
  }

  const files = readFiles(name, t, policy);
  bad.push(...files.refusals);
  const resembles = findTyposquatTarget(name, "PyPI", policy.allowNames);
  if (resembles !== null) bad.push(invalidTyposquat(FILE, name, resembles));
  if (bad.length > 0) return err(bad);
  return ok({
    ecosystem: "PyPI",
    name,
    version: version as string,
    integrity: [...new Set(files.hashes)].sort().join(" "),
    resolved: files.first,
    files: files.located,
    direct: false,
    dev: false,
    path: `${FILE}:${name}@${version as string}`,
  });
}

/** A file host prefix with exactly one trailing slash, so a look-alike host never matches. */
function hostBase(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

/** Two simple-index URLs are the same index whatever their trailing slash. */
function sameIndex(a: string, b: string): boolean {
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}

/** The sdist's and wheels' hashes, first URL and URLs with hashes, and what is wrong with any of them. */
function readFiles(
  name: string,
  t: PackageTable,
  policy: DependencyPolicy,
): {
  hashes: string[];
  first: string | null;
  located: { url: string; hash: string }[];
  refusals: DependencyRefusal[];
} {
  const refusals: DependencyRefusal[] = [];
  const wheels: unknown = t.wheels ?? [];
  if (!Array.isArray(wheels) || (t.sdist !== undefined && !isRecord(t.sdist))) {
    const why = `${name}'s sdist is not a table or its wheels not an array`;
    return {
      hashes: [],
      first: null,
      located: [],
      refusals: [invalid("unreadable", FILE, name, why)],
    };
  }
  const files: unknown[] = [...(t.sdist !== undefined ? [t.sdist] : []), ...(wheels as unknown[])];
  if (files.length === 0)
    refusals.push(invalid("missing-integrity", FILE, name, `${name} lists no sdist or wheel`));
  const hashes: string[] = [];
  const located: { url: string; hash: string }[] = [];
  let first: string | null = null;
  for (const f of files) {
    if (!isRecord(f)) {
      refusals.push(invalid("unreadable", FILE, name, `a file of ${name} is not a table`));
      continue;
    }
    const url = f.url;
    if (typeof url !== "string" || !policy.pypiFileHosts.some((h) => url.startsWith(hostBase(h)))) {
      const where = typeof url === "string" ? quote(url) : `no URL (${quote(f.path ?? null)})`;
      refusals.push(
        invalid(
          "non-registry-source",
          FILE,
          name,
          `a file of ${name} is at ${where}, not the index's file host`,
        ),
      );
    } else first ??= url;
    const hash = f.hash;
    if (hash === undefined)
      refusals.push(invalid("missing-integrity", FILE, name, `a file of ${name} has no hash`));
    else if (typeof hash !== "string" || !SHA256.test(hash))
      refusals.push(
        invalid("weak-integrity", FILE, name, `${quote(hash, 40)} is not sha256:<64 hex digits>`),
      );
    else {
      hashes.push(hash);
      if (typeof url === "string") located.push({ url, hash });
    }
  }
  return { hashes, first, located, refusals };
}
