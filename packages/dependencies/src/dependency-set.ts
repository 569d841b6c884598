/**
 * @module dependencies/dependency-set
 * A folder's dependency files taken together: which lockfile is there (package-lock.json with
 * its package.json, requirements.txt, or uv.lock; never two kinds at once, never a manifest
 * that declares dependencies without its lock), read by the one reader of its kind. Also what
 * an adapter needs before that: the file names to look for, their bytes decoded within the
 * bound, and whether a folder declares dependencies at all. Pure: texts in, values out.
 */
import { err, ok, type Result } from "@bouts/result";
import { NPM_DEPENDENCY_FIELDS, readNpmLock, readNpmManifest } from "./npm.ts";
import { invalid, invalidSize, type DependencyRefusal } from "./refusal.ts";
import { readRequirements, splitRequirementLines } from "./requirements.ts";
import { countUtf8Bytes, isRecord, parseJson } from "./text.ts";
import {
  DEFAULT_DEPENDENCY_POLICY,
  type DependencyFile,
  type DependencyPolicy,
  type DependencySet,
  type Ecosystem,
  type Lockfile,
} from "./types.ts";
import { readUvLock } from "./uv-lock.ts";

/**
 * The files at a folder's root that say what it depends on: the lockfiles read, their
 * manifest, and npm-shrinkwrap.json, which npm would install from in package-lock.json's place.
 */
export const DEPENDENCY_FILE_NAMES = [
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "requirements.txt",
  "uv.lock",
] as const;

const ECOSYSTEM_OF: Record<Lockfile, Ecosystem> = {
  "package-lock.json": "npm",
  "requirements.txt": "PyPI",
  "uv.lock": "PyPI",
};

type Refused<T> = Result<T, DependencyRefusal[]>;

/** The file at exactly `name` (the folder's root), if there is one. */
function fileAt(files: readonly DependencyFile[], name: string): DependencyFile | undefined {
  return files.find((f) => f.path === name);
}

/**
 * Decodes one dependency file's bytes as UTF-8 text (a byte-order mark dropped), refusing it
 * when its whole size (`size`, which may exceed the bytes kept) is over the policy's bound, or
 * when the bytes are not UTF-8.
 * @example
 * const file = decodeDependencyFile("package.json", prefix, entrySize, policy);
 */
export function decodeDependencyFile(
  path: string,
  bytes: Uint8Array,
  size: number,
  policy: DependencyPolicy = DEFAULT_DEPENDENCY_POLICY,
): Result<DependencyFile, DependencyRefusal> {
  if (size > policy.maxLockBytes) return err(invalidSize(path, size, policy.maxLockBytes));
  try {
    return ok({
      path,
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes),
    });
  } catch {
    return err(invalid("unreadable", path, null, `${path} is not UTF-8 text`));
  }
}

/**
 * Whether the folder's files declare third-party dependencies, and where: a package.json with
 * a non-empty dependency field, an npm lock that pins any package, a requirements.txt with
 * any line beyond comments, or a uv.lock. Null when none does (a package.json with no
 * dependencies, or one that is not JSON, declares none).
 */
export function findDeclaredDependencies(
  files: readonly DependencyFile[],
): { file: string; detail: string } | null {
  const manifest = fileAt(files, "package.json");
  if (manifest) {
    const maps = readNpmManifest(manifest.text);
    const names = maps.ok ? NPM_DEPENDENCY_FIELDS.flatMap((f) => [...maps.value[f].keys()]) : [];
    if (names.length > 0)
      return { file: "package.json", detail: `package.json declares ${listNames(names)}` };
  }
  for (const name of ["package-lock.json", "npm-shrinkwrap.json"]) {
    const lock = fileAt(files, name);
    if (!lock) continue;
    const parsed = parseJson(lock.text);
    const packages = parsed.ok && isRecord(parsed.value) ? parsed.value.packages : undefined;
    const pinned = isRecord(packages) ? Object.keys(packages).filter((k) => k !== "") : [];
    if (pinned.length > 0) return { file: name, detail: `${name} pins ${listNames(pinned)}` };
  }
  const requirements = fileAt(files, "requirements.txt");
  if (requirements && splitRequirementLines(requirements.text).length > 0)
    return { file: "requirements.txt", detail: "requirements.txt lists requirements" };
  if (fileAt(files, "uv.lock")) return { file: "uv.lock", detail: "uv.lock is present" };
  return null;
}

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/**
 * Reads requirements.txt or uv.lock (exactly one of them) into the releases it pins.
 * @example
 * readPythonLock([{ path: "requirements.txt", text }], DEFAULT_DEPENDENCY_POLICY);
 */
export function readPythonLock(
  files: readonly DependencyFile[],
  policy: DependencyPolicy = DEFAULT_DEPENDENCY_POLICY,
): Refused<DependencySet> {
  const requirements = fileAt(files, "requirements.txt");
  const uvLock = fileAt(files, "uv.lock");
  if (requirements && uvLock) return err([conflicting(["requirements.txt", "uv.lock"])]);
  if (requirements) return readRequirements(requirements.text, policy);
  if (uvLock) return readUvLock(uvLock.text, policy);
  return err([
    invalid("missing-lockfile", "requirements.txt", null, "no requirements.txt or uv.lock"),
  ]);
}

function conflicting(locks: readonly string[]): DependencyRefusal {
  return invalid(
    "conflicting-lockfiles",
    locks[0]!,
    null,
    `${locks.join(" and ")} are both present: ship exactly one lockfile`,
  );
}

/**
 * Finds which lockfile the folder's root holds and reads it: the packages it pins, each
 * checked against `policy`; null when the folder declares no third-party dependency (no
 * lockfile and no manifest that declares one, or a lock that pins nothing); or every refusal.
 * @example
 * const deps = readDependencySet(
 *   [{ path: "package.json", text: pkg }, { path: "package-lock.json", text: lock }],
 *   { ...DEFAULT_DEPENDENCY_POLICY, maxPackages: 50 },
 * );
 */
export function readDependencySet(
  files: readonly DependencyFile[],
  policy: DependencyPolicy = DEFAULT_DEPENDENCY_POLICY,
): Refused<DependencySet | null> {
  const refusals: DependencyRefusal[] = [];
  for (const name of DEPENDENCY_FILE_NAMES) {
    const file = fileAt(files, name);
    const bytes = file ? countUtf8Bytes(file.text) : 0;
    if (bytes > policy.maxLockBytes) refusals.push(invalidSize(name, bytes, policy.maxLockBytes));
  }
  if (refusals.length > 0) return err(refusals);
  if (fileAt(files, "npm-shrinkwrap.json"))
    refusals.push(
      invalid(
        "unsupported-lockfile",
        "npm-shrinkwrap.json",
        null,
        "npm would install from npm-shrinkwrap.json instead of package-lock.json: ship package-lock.json only",
      ),
    );
  const locks = (["package-lock.json", "requirements.txt", "uv.lock"] as const).filter((name) =>
    fileAt(files, name),
  );
  if (locks.length > 1) refusals.push(conflicting(locks));
  const manifest = fileAt(files, "package.json");
  const npmLock = fileAt(files, "package-lock.json");
  if (npmLock && !manifest)
    refusals.push(
      invalid(
        "missing-manifest",
        "package-lock.json",
        null,
        "package-lock.json has no package.json beside it",
      ),
    );
  if (manifest && !npmLock) {
    const declared = findDeclaredDependencies([manifest]);
    if (declared)
      refusals.push(
        invalid(
          "missing-lockfile",
          "package.json",
          null,
          `${declared.detail} and there is no package-lock.json: run npm install and ship the lock`,
        ),
      );
  }
  if (refusals.length > 0) return err(refusals);
  const lockfile = locks[0];
  if (lockfile === undefined) return ok(null);
  const ecosystem = ECOSYSTEM_OF[lockfile];
  if (policy.ecosystems && !policy.ecosystems.includes(ecosystem))
    return err([
      invalid(
        "wrong-ecosystem",
        lockfile,
        null,
        `${lockfile} pins ${ecosystem} packages; this challenge takes ${policy.ecosystems.join(" or ")} packages`,
      ),
    ]);
  const set =
    lockfile === "package-lock.json"
      ? readNpmLock(manifest!.text, npmLock!.text, policy)
      : readPythonLock(files, policy);
  if (!set.ok) return set;
  return ok(set.value.packages.length > 0 ? set.value : null);
}
