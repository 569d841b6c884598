/**
 * @module runner/challenge/bundle
 * Loading and preparing challenge bundles. A bundle arrives as an archive (unpacked with the same
 * safe unpacker as submissions) and is cached by its sha256, so a challenge is prepared once.
 * Preparing validates the manifest, checks every listed test file, and installs locked
 * dependencies into a layer the runs mount read-only. Invariants: a cached bundle is only used
 * once its `ready` marker exists; dependency installs never run package scripts.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { create as createTar } from "tar";
import { ChallengeManifestSchema, type ChallengeManifest } from "@bouts/contracts";
import { describeUnpackError, unpackArchive, type UnpackLimits } from "../archive/unpack.ts";
import {
  DEFAULT_DEPENDENCY_POLICY,
  describeDependencyRefusal,
  readNpmLock,
  readRequirements,
  readUvLock,
  type DependencySet,
} from "@bouts/dependencies";
import { err, ok, type Result } from "@bouts/result";
import {
  installNpmDependencies,
  type InstallContext,
  type InstallError,
  type InstallLimits,
} from "../deps/install.ts";
import { installPythonDependencies } from "../deps/pip-install.ts";
import type { UidPool } from "../sandbox/uid-pool.ts";

/** A challenge ready to run: its files on disk and its validated manifest. */
export interface PreparedChallenge {
  sha256: string;
  /** Root of the unpacked bundle (challenge.json, tests/, harness/, reference/). */
  root: string;
  manifest: ChallengeManifest;
  /** Read-only dependency layer to mount, or null when the challenge has no dependencies. */
  depsLayer: string | null;
  /** What the bundle's lock pins (null without one): the judges see its direct packages. */
  dependencies: DependencySet | null;
}

/** Why a bundle could not be loaded or prepared. */
export type BundleError =
  | { reason: "bundle-unpack"; detail: string }
  | { reason: "manifest-invalid"; issues: string[] }
  | { reason: "bundle-missing-file"; path: string; detail: string }
  | { reason: "prepare-failed"; detail: string }
  | InstallError;

/** Formats a bundle error for logs and problem details. */
export function describeBundleError(e: BundleError): string {
  switch (e.reason) {
    case "bundle-unpack":
      return `bundle archive refused: ${e.detail}`;
    case "manifest-invalid":
      return `challenge.json is invalid: ${e.issues.join("; ")}`;
    case "bundle-missing-file":
      return `bundle file ${e.path}: ${e.detail}`;
    case "prepare-failed":
      return `preparing the bundle failed: ${e.detail}`;
    case "dependencies":
      return `the bundle's dependencies (${e.rule}${e.package ? `, ${e.package}` : ""}): ${e.detail}`;
  }
}

/** Where bundles are prepared, and how their locked dependencies are installed. */
export interface PrepareOptions {
  workDir: string;
  unpackLimits: UnpackLimits;
  installer: {
    /** Where the install sandbox runs and what it mounts (its uid comes from the pool). */
    context: Omit<InstallContext, "hostUid">;
    uidPool: UidPool;
  };
}

/** Files that belong in a bundle archive; example submissions stay out of it. */
const BUNDLE_TOP_LEVEL = [
  "challenge.json",
  "tests",
  "harness",
  "reference",
  "baselines",
  "package-lock.json",
  "requirements.lock",
  "README.md",
];

/**
 * Every path of `dir` under the `top` entries, sorted, each folder before what it holds; a
 * symbolic link is listed, never followed.
 */
function listTree(dir: string, top: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    out.push(rel);
    if (!lstatSync(path.join(dir, rel)).isDirectory()) return;
    for (const name of readdirSync(path.join(dir, rel)).sort()) walk(`${rel}/${name}`);
  };
  for (const name of [...top].sort()) walk(name);
  return out;
}

/**
 * The `top` entries of `dir` as a .tar.gz whose bytes depend only on names, contents, modes and
 * link targets: entries sorted (not in the file system's order), every mtime 0, no owners. A
 * bundle's sha256 names a challenge version and seeds its generated-test draw, so the same
 * folder must pack to the same bytes in every checkout.
 */
async function packTree(dir: string, top: readonly string[]): Promise<Buffer> {
  const stream = createTar(
    {
      cwd: dir,
      gzip: true,
      portable: true,
      follow: false,
      noDirRecurse: true,
      mtime: new Date(0),
    },
    listTree(dir, top),
  );
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * Packs a challenge folder into a bundle archive (.tar.gz), as the platform would upload it; the
 * same files give the same bytes (see packTree).
 */
export function packChallengeDir(dir: string): Promise<Buffer> {
  return packTree(
    dir,
    BUNDLE_TOP_LEVEL.filter((e) => existsSync(path.join(dir, e))),
  );
}

/**
 * Packs any folder (e.g. a submission given as a folder) into a .tar.gz, keeping links as links;
 * the same files give the same bytes.
 */
export function packDir(dir: string): Promise<Buffer> {
  return packTree(dir, readdirSync(dir));
}

/** sha256 of bytes, hex. */
export function computeSha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function isRegularFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** Validates an unpacked bundle folder: manifest, test files, reference solution. */
export function loadChallengeDir(root: string): Result<ChallengeManifest, BundleError> {
  const manifestPath = path.join(root, "challenge.json");
  if (!isRegularFile(manifestPath)) {
    return err({ reason: "bundle-missing-file", path: "challenge.json", detail: "not found" });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(manifestPath, "utf8"));
  } catch (e) {
    return err({ reason: "manifest-invalid", issues: [`not JSON: ${(e as Error).message}`] });
  }
  const parsed = ChallengeManifestSchema.safeParse(raw);
  if (!parsed.success) {
    return err({
      reason: "manifest-invalid",
      issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
    });
  }
  const manifest = parsed.data;
  if (!manifest.interface) {
    // Trusted grading needs to know which module the tests address (docs/subject-protocol.md).
    return err({
      reason: "manifest-invalid",
      issues: ["interface: required: the module the hidden tests call through the bridge"],
    });
  }
  for (const t of [...manifest.staticTests, ...manifest.adversarialTests]) {
    const file = path.join(root, "tests", t.file);
    if (!isRegularFile(file)) {
      return err({
        reason: "bundle-missing-file",
        path: `tests/${t.file}`,
        detail: `test ${t.id} names a missing file`,
      });
    }
    if (!readFileSync(file, "utf8").includes(t.name)) {
      return err({
        reason: "bundle-missing-file",
        path: `tests/${t.file}`,
        detail: `no test named ${JSON.stringify(t.name)} (test ${t.id})`,
      });
    }
  }
  if (!existsSync(path.join(root, "reference"))) {
    return err({
      reason: "bundle-missing-file",
      path: "reference/",
      detail: "the reference solution is missing",
    });
  }
  if (
    manifest.dependencies.lockfile &&
    !isRegularFile(path.join(root, manifest.dependencies.lockfile))
  ) {
    return err({
      reason: "bundle-missing-file",
      path: manifest.dependencies.lockfile,
      detail: "lockfile not found",
    });
  }
  return ok(manifest);
}

/** The bounds of a challenge's own install (an operator's bundle: larger than a submission's). */
export const CHALLENGE_INSTALL_LIMITS: InstallLimits = {
  maxInstalledBytes: 512 * 1024 * 1024,
  maxInstallMs: 300_000,
};

/**
 * Installs the bundle's locked dependencies in an install sandbox (src/deps/install.ts), or finds
 * them installed by an earlier bundle with the same lock; answers the folder runs mount and what
 * the lock pins (null without a lock).
 */
async function installDependencies(
  root: string,
  manifest: ChallengeManifest,
  options: PrepareOptions,
): Promise<Result<{ layer: string; set: DependencySet } | null, BundleError>> {
  const read = readBundleLock(root, manifest);
  if (!read.ok) return read;
  if (read.value === null) return ok(null);
  const { manifestText, lockText, set } = read.value;
  const lease = await options.installer.uidPool.acquire();
  try {
    const context = { ...options.installer.context, hostUid: lease.uid };
    const installed =
      set.ecosystem === "PyPI"
        ? await installPythonDependencies(
            { lockfile: manifest.dependencies.lockfile!, lockText, packages: set.packages },
            CHALLENGE_INSTALL_LIMITS,
            context,
          )
        : await installNpmDependencies(
            { manifestText, lockText, packages: set.packages, omitDev: false },
            CHALLENGE_INSTALL_LIMITS,
            context,
          );
    if (!installed.ok) return err(installed.error);
    return ok({ layer: installed.value.layer, set });
  } finally {
    lease.release();
  }
}

/** The bundle's lock read and checked (null without one): what it pins, and its texts. */
function readBundleLock(
  root: string,
  manifest: ChallengeManifest,
): Result<{ manifestText: string; lockText: string; set: DependencySet } | null, BundleError> {
  const lockfile = manifest.dependencies.lockfile;
  if (!lockfile) return ok(null);
  const policy = {
    ...DEFAULT_DEPENDENCY_POLICY,
    maxPackages: 2000,
    allowNames: manifest.dependencies.allowNames,
  };
  if (manifest.runtime !== "node22") {
    // A hashed requirements file (requirements.lock, requirements.txt) or a uv.lock.
    const lockText = readFileSync(path.join(root, lockfile), "utf8");
    const set =
      path.basename(lockfile) === "uv.lock"
        ? readUvLock(lockText, policy)
        : readRequirements(lockText, policy);
    if (!set.ok)
      return err({
        reason: "dependencies",
        rule: "lockfile-refused",
        package: set.error[0]?.package ?? null,
        detail: set.error.map(describeDependencyRefusal).join("; "),
      });
    return ok({ manifestText: "", lockText, set: set.value });
  }
  const pkg = path.join(root, "harness", "package.json");
  if (!isRegularFile(pkg))
    return err({
      reason: "bundle-missing-file",
      path: "harness/package.json",
      detail: "needed with a package-lock.json",
    });
  const manifestText = readFileSync(pkg, "utf8");
  const lockText = readFileSync(path.join(root, lockfile), "utf8");
  const set = readNpmLock(manifestText, lockText, policy);
  if (!set.ok)
    return err({
      reason: "dependencies",
      rule: "lockfile-refused",
      package: set.error[0]?.package ?? null,
      detail: set.error.map(describeDependencyRefusal).join("; "),
    });
  return ok({ manifestText, lockText, set: set.value });
}

const inFlight = new Map<string, Promise<Result<PreparedChallenge, BundleError>>>();

/** Prepares a bundle archive once per sha256 and returns the cached result afterwards. */
export function prepareChallenge(
  bytes: Uint8Array,
  options: PrepareOptions,
): Promise<Result<PreparedChallenge, BundleError>> {
  const sha256 = computeSha256(bytes);
  const pending = inFlight.get(sha256);
  if (pending) return pending;
  const p = prepareUncached(sha256, bytes, options).finally(() => inFlight.delete(sha256));
  inFlight.set(sha256, p);
  return p;
}

async function prepareUncached(
  sha256: string,
  bytes: Uint8Array,
  options: PrepareOptions,
): Promise<Result<PreparedChallenge, BundleError>> {
  const cacheDir = path.join(options.workDir, "challenges", sha256);
  const root = path.join(cacheDir, "bundle");
  const marker = path.join(cacheDir, "ready");
  if (isRegularFile(marker)) {
    const manifest = loadChallengeDir(root);
    if (!manifest.ok) return manifest;
    const depsLayer = readFileSync(marker, "utf8").trim() || null;
    const lock = readBundleLock(root, manifest.value);
    if (!lock.ok) return lock;
    const dependencies = lock.value?.set ?? null;
    return ok({ sha256, root, manifest: manifest.value, depsLayer, dependencies });
  }
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
  const unpacked = await unpackArchive(bytes, root, options.unpackLimits);
  if (!unpacked.ok) {
    rmSync(cacheDir, { recursive: true, force: true });
    return err({ reason: "bundle-unpack", detail: describeUnpackError(unpacked.error) });
  }
  const manifest = loadChallengeDir(root);
  if (!manifest.ok) {
    rmSync(cacheDir, { recursive: true, force: true });
    return manifest;
  }
  const deps = await installDependencies(root, manifest.value, options);
  if (!deps.ok) {
    rmSync(cacheDir, { recursive: true, force: true });
    return deps;
  }
  writeFileSync(marker, deps.value?.layer ?? "");
  return ok({
    sha256,
    root,
    manifest: manifest.value,
    depsLayer: deps.value?.layer ?? null,
    dependencies: deps.value?.set ?? null,
  });
}
