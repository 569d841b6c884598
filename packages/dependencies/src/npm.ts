/**
 * @module dependencies/npm
 * Reads package.json with its package-lock.json (lockfileVersion 2 or 3: the `packages` map)
 * into the exact set of registry tarballs npm would install, or every refusal: the lock must
 * match its manifest, and each entry must be an exact version of a valid name, from a policy
 * registry, with a sha512 integrity, and not shaped like a popular name's typosquat.
 * Invariants: nothing is thrown; every value is type-checked before it is read; sizes are
 * counted in UTF-8 bytes. Pure: no I/O.
 */
import { err, ok, type Result } from "@bouts/result";
import validateName from "validate-npm-package-name";
import { checkResolved, rangeAccepts, readManifestSpec } from "./npm-source.ts";
import {
  invalid,
  invalidCount,
  invalidSize,
  invalidTyposquat,
  type DependencyRefusal,
} from "./refusal.ts";
import { countUtf8Bytes, isRecord, parseJson, quote } from "./text.ts";
import { findTyposquatTarget } from "./typosquat.ts";
import {
  DEFAULT_DEPENDENCY_POLICY,
  type DependencyPolicy,
  type DependencySet,
  type ResolvedPackage,
} from "./types.ts";

const MANIFEST = "package.json";
const LOCK = "package-lock.json";

/** The manifest fields that declare dependencies, as the lock's root entry repeats them. */
export const NPM_DEPENDENCY_FIELDS = [
  "dependencies",
  "devDependencies",
  "optionalDependencies",
  "peerDependencies",
] as const;
type DependencyField = (typeof NPM_DEPENDENCY_FIELDS)[number];
type DependencyMaps = Record<DependencyField, ReadonlyMap<string, string>>;

// semver.org's pattern: one exact version, build metadata allowed; no range, no `v` prefix.
const EXACT_SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const SHA512_SRI = /^sha512-[A-Za-z0-9+/]{86}==$/;

type Refused<T> = Result<T, DependencyRefusal[]>;

/**
 * Reads an npm manifest and its lock into the packages it pins, each checked against
 * `policy`; or every refusal, each naming the package and the rule.
 * @example
 * const set = readNpmLock(packageJsonText, packageLockText, DEFAULT_DEPENDENCY_POLICY);
 * if (!set.ok) for (const r of set.error) console.log(describeDependencyRefusal(r));
 */
export function readNpmLock(
  manifestText: string,
  lockText: string,
  policy: DependencyPolicy = DEFAULT_DEPENDENCY_POLICY,
): Refused<DependencySet> {
  const oversized = [
    [MANIFEST, countUtf8Bytes(manifestText)] as const,
    [LOCK, countUtf8Bytes(lockText)] as const,
  ]
    .filter(([, bytes]) => bytes > policy.maxLockBytes)
    .map(([file, bytes]) => invalidSize(file, bytes, policy.maxLockBytes));
  if (oversized.length > 0) return err(oversized);

  const manifest = readNpmManifest(manifestText);
  if (!manifest.ok) return err([manifest.error]);
  const lock = readLockDocument(lockText);
  if (!lock.ok) return err([lock.error]);
  const { root, entries } = lock.value;

  const refusals: DependencyRefusal[] = [];
  const rootDeps = readDependencyMaps(root, LOCK, "the lock's root entry");
  if (!rootDeps.ok) return err([rootDeps.error]);
  refusals.push(...compareRoot(manifest.value, rootDeps.value));
  if (entries.length > policy.maxPackages)
    return err([...refusals, invalidCount(LOCK, entries.length, policy.maxPackages)]);

  const directNames = new Set(NPM_DEPENDENCY_FIELDS.flatMap((f) => [...manifest.value[f].keys()]));
  const packages: ResolvedPackage[] = [];
  for (const [key, entry] of entries) {
    const read = readLockEntry(key, entry, directNames, policy);
    if (read.ok) packages.push(read.value);
    else refusals.push(...read.error);
  }
  refusals.push(...checkDirectDependencies(manifest.value, new Map(entries)));
  if (refusals.length > 0) return err(refusals);
  packages.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return ok({ ecosystem: "npm", lockfile: LOCK, packages });
}

// ─── The manifest ───

/**
 * The dependency fields of a package.json, each a name → spec map (absent fields empty); or
 * the refusal of a manifest that is not a JSON object of string specs.
 */
export function readNpmManifest(text: string): Result<DependencyMaps, DependencyRefusal> {
  const parsed = parseJson(text);
  if (!parsed.ok) return err(invalid("unreadable", MANIFEST, null, `not JSON: ${parsed.error}`));
  if (!isRecord(parsed.value))
    return err(invalid("unreadable", MANIFEST, null, "not a JSON object"));
  return readDependencyMaps(parsed.value, MANIFEST, "package.json");
}

function readDependencyMaps(
  doc: Record<string, unknown>,
  file: string,
  where: string,
): Result<DependencyMaps, DependencyRefusal> {
  const maps: Partial<Record<DependencyField, Map<string, string>>> = {};
  for (const field of NPM_DEPENDENCY_FIELDS) {
    const value = Object.hasOwn(doc, field) ? doc[field] : undefined;
    const map = new Map<string, string>();
    if (value !== undefined) {
      if (!isRecord(value))
        return err(invalid("unreadable", file, null, `${where}'s ${field} is not an object`));
      for (const [name, spec] of Object.entries(value)) {
        if (typeof spec !== "string")
          return err(
            invalid("unreadable", file, name, `${where}'s ${field}.${name} is not a string`),
          );
        map.set(name, spec);
      }
    }
    maps[field] = map;
  }
  return ok(maps as DependencyMaps);
}

// ─── The lock ───

function readLockDocument(
  text: string,
): Result<{ root: Record<string, unknown>; entries: [string, unknown][] }, DependencyRefusal> {
  const parsed = parseJson(text);
  if (!parsed.ok) return err(invalid("unreadable", LOCK, null, `not JSON: ${parsed.error}`));
  const doc = parsed.value;
  if (!isRecord(doc)) return err(invalid("unreadable", LOCK, null, "not a JSON object"));
  const version = doc.lockfileVersion;
  if (version === 1) {
    return err(
      invalid(
        "unsupported-lockfile",
        LOCK,
        null,
        "lockfileVersion 1 has no packages map: regenerate it with npm 7 or later (lockfileVersion 2 or 3)",
      ),
    );
  }
  if (version !== 2 && version !== 3) {
    return err(
      invalid(
        "unsupported-lockfile",
        LOCK,
        null,
        `lockfileVersion ${quote(version ?? null)} is not read: only 2 and 3 (npm 7 or later)`,
      ),
    );
  }
  const packages = doc.packages;
  if (!isRecord(packages))
    return err(invalid("unreadable", LOCK, null, "the lock has no packages map"));
  const root = Object.hasOwn(packages, "") ? packages[""] : undefined;
  if (!isRecord(root))
    return err(invalid("unreadable", LOCK, null, 'the packages map has no root entry ("")'));
  return ok({ root, entries: Object.entries(packages).filter(([key]) => key !== "") });
}

/** Every difference between the manifest's dependency fields and the lock root's. */
function compareRoot(manifest: DependencyMaps, root: DependencyMaps): DependencyRefusal[] {
  const out: DependencyRefusal[] = [];
  const rerun = "run npm install to bring package-lock.json up to date";
  for (const field of NPM_DEPENDENCY_FIELDS) {
    const want = manifest[field];
    const have = root[field];
    for (const [name, spec] of want) {
      const locked = have.get(name);
      if (locked === undefined) {
        out.push(
          invalid(
            "lock-mismatch",
            LOCK,
            name,
            `package.json's ${field} has ${name} ${quote(spec)} and the lock's root does not: ${rerun}`,
          ),
        );
      } else if (locked !== spec) {
        out.push(
          invalid(
            "lock-mismatch",
            LOCK,
            name,
            `package.json's ${field} asks ${quote(spec)} and the lock's root records ${quote(locked)}: ${rerun}`,
          ),
        );
      }
    }
    for (const name of have.keys()) {
      if (!want.has(name))
        out.push(
          invalid(
            "lock-mismatch",
            LOCK,
            name,
            `the lock's root has ${name} in ${field} and package.json does not: ${rerun}`,
          ),
        );
    }
  }
  return out;
}

/** The install names along a lock key (`node_modules/a/node_modules/@s/b` → a, @s/b), or null. */
export function parseLockKey(key: string): string[] | null {
  const segments = key.split("/");
  const names: string[] = [];
  let i = 0;
  while (i < segments.length) {
    if (segments[i] !== "node_modules") return null;
    const first = segments[i + 1];
    if (!first) return null;
    if (first.startsWith("@")) {
      const second = segments[i + 2];
      if (!second) return null;
      names.push(`${first}/${second}`);
      i += 3;
    } else {
      names.push(first);
      i += 2;
    }
  }
  return names.length > 0 ? names : null;
}

/** One lock entry as a resolved package, or every rule it breaks. */
function readLockEntry(
  key: string,
  entry: unknown,
  directNames: ReadonlySet<string>,
  policy: DependencyPolicy,
): Refused<ResolvedPackage> {
  if (!isRecord(entry)) return err([invalid("unreadable", LOCK, key, `${key} is not an object`)]);
  const names = parseLockKey(key);
  const declared = entry.name;
  if (declared !== undefined && typeof declared !== "string")
    return err([invalid("unreadable", LOCK, key, `${key}'s name is not a string`)]);
  if (names === null) {
    return err([
      invalid(
        "non-registry-source",
        LOCK,
        declared ?? key,
        `${quote(key)} is a folder outside node_modules (a workspace or a local package)`,
      ),
    ]);
  }
  const installName = names[names.length - 1]!;
  const name = declared ?? installName;
  const { version, resolved, integrity } = entry;
  if (entry.link === true) {
    const target = typeof resolved === "string" ? ` to ${quote(resolved)}` : "";
    return err([
      invalid(
        "non-registry-source",
        LOCK,
        name,
        `${key} is a link${target}, not a registry package`,
      ),
    ]);
  }

  const bad: DependencyRefusal[] = [];
  for (const n of new Set([name, installName])) {
    const valid = validateName(n);
    if (!valid.validForOldPackages)
      bad.push(invalid("invalid-name", LOCK, n, `${quote(n)}: ${(valid.errors ?? []).join("; ")}`));
  }
  if (typeof version !== "string" || version.length > 256 || !EXACT_SEMVER.test(version)) {
    bad.push(
      invalid(
        "inexact-version",
        LOCK,
        name,
        version === undefined
          ? `${key} has no version`
          : `${key}'s version ${quote(version)} is not one exact semver version`,
      ),
    );
  }
  if (resolved !== undefined && typeof resolved !== "string") {
    bad.push(invalid("unreadable", LOCK, name, `${key}'s resolved is not a string`));
  } else if (typeof resolved === "string" && typeof version === "string") {
    const why = checkResolved(resolved, name, version, policy.registries.npm);
    if (why !== null) bad.push(invalid("non-registry-source", LOCK, name, why));
  }
  const integrityProblem = checkIntegrity(key, integrity, entry.inBundle === true);
  if (integrityProblem) bad.push(invalid(integrityProblem.rule, LOCK, name, integrityProblem.why));
  // The registry name is what is fetched; an alias only names the folder it lands in.
  const resembles = findTyposquatTarget(name, "npm", policy.allowNames);
  if (resembles !== null) bad.push(invalidTyposquat(LOCK, name, resembles));
  if (bad.length > 0) return err(bad);
  return ok({
    ecosystem: "npm",
    name,
    version: version as string,
    integrity: integrity as string,
    resolved: (resolved as string | undefined) ?? null,
    direct: names.length === 1 && directNames.has(installName),
    dev: entry.dev === true,
    path: key,
  });
}

function checkIntegrity(
  key: string,
  integrity: unknown,
  inBundle: boolean,
): { rule: "missing-integrity" | "weak-integrity" | "unreadable"; why: string } | null {
  if (integrity === undefined) {
    const bundled = inBundle ? ": it is bundled inside its parent's tarball" : "";
    return { rule: "missing-integrity", why: `${key} has no integrity hash${bundled}` };
  }
  if (typeof integrity !== "string") {
    return { rule: "unreadable", why: `${key}'s integrity is not a string` };
  }
  if (integrity.split(/\s+/).some((token) => SHA512_SRI.test(token))) return null;
  return {
    rule: "weak-integrity",
    why: `${key}'s integrity ${quote(integrity, 40)} has no sha512 hash (regenerate the lock)`,
  };
}

/**
 * The manifest's own dependencies against the lock: each at `node_modules/<name>` (optional
 * peers may be absent), from the registry, at a version its range accepts.
 */
function checkDirectDependencies(
  manifest: DependencyMaps,
  entries: ReadonlyMap<string, unknown>,
): DependencyRefusal[] {
  const out: DependencyRefusal[] = [];
  for (const field of NPM_DEPENDENCY_FIELDS) {
    for (const [installName, spec] of manifest[field]) {
      const entry = entries.get(`node_modules/${installName}`);
      if (entry === undefined) {
        if (field !== "peerDependencies")
          out.push(
            invalid(
              "missing-direct-dependency",
              LOCK,
              installName,
              `package.json's ${field} has ${installName} and the lock has no node_modules/${installName}`,
            ),
          );
        continue;
      }
      const read = readManifestSpec(spec);
      if (!read.ok) {
        out.push(
          read.error.kind === "non-registry"
            ? invalid(
                "non-registry-source",
                MANIFEST,
                installName,
                `package.json's ${field} asks for ${quote(spec)}: ${read.error.detail}`,
              )
            : invalid(
                "unsatisfied-range",
                MANIFEST,
                installName,
                `package.json's ${field}: ${read.error.detail} (a dist-tag cannot be checked against the lock)`,
              ),
        );
        continue;
      }
      // An entry without an exact version is refused above, by its own rule.
      if (!isRecord(entry) || typeof entry.version !== "string") continue;
      if (!EXACT_SEMVER.test(entry.version)) continue;
      const lockedName = typeof entry.name === "string" ? entry.name : installName;
      const wanted = read.value.name ?? installName;
      if (lockedName !== wanted) {
        out.push(
          invalid(
            "unsatisfied-range",
            LOCK,
            installName,
            `package.json's ${field} asks for ${wanted} and the lock installs ${lockedName} as ${installName}`,
          ),
        );
      } else if (!rangeAccepts(read.value.range, entry.version)) {
        out.push(
          invalid(
            "unsatisfied-range",
            LOCK,
            installName,
            `the lock pins ${installName}@${entry.version}, which package.json's ${field} range ${quote(read.value.range)} does not accept`,
          ),
        );
      }
    }
  }
  return out;
}
