/**
 * @module runner/deps/install
 * Installs an npm lockfile's packages in a sandbox of their own, once per lockfile: the install
 * sandbox has no network but a relay to the host's registry proxy (registry-proxy.ts), which
 * serves only the lock's tarballs, from the one configured registry, each checked against the
 * lock's sha512; npm runs with --ignore-scripts (no package code runs, at install or ever on the
 * host); the tree lands on a tmpfs capped at the install's byte limit, within its time limit.
 * The host then copies it (no link followed or kept) into a cache folder named by the sha256 of
 * the lockfile and the install's options, and checks that every package of the lock is there at
 * its locked version before the folder is marked ready. Runs mount that folder read-only.
 * Invariants: a cached tree is never rebuilt or written again; a failed install leaves nothing
 * in the cache; every refusal names the package and the rule.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { canonicalTarballPath } from "@bouts/dependencies";
import { err, ok, type Result } from "@bouts/result";
import {
  computeScratchCaps,
  runSandboxed,
  scratchMountOptions,
  type SandboxLimits,
} from "../sandbox/sandbox.ts";
import { mountScratchDir, unmountScratchDir } from "../sandbox/scratch-mount.ts";
import type { CgroupSupport } from "../sandbox/cgroup.ts";
import { startRegistryProxy, type ProxyRequest } from "./registry-proxy.ts";

/**
 * Changes whenever what an install produces could change (flags, layout, the copy's rules): part
 * of the cache key, so an older runner's tree is never reused by a newer one.
 */
export const NPM_INSTALLER_VERSION = "npm-install/1";

/** One locked package, as the lockfile reader resolved it. */
export interface LockedNpmPackage {
  /** The lock key, `node_modules/a` or `node_modules/a/node_modules/b`. */
  path: string;
  name: string;
  version: string;
  /** `sha512-…` */
  integrity: string;
  dev: boolean;
}

/** What to install: the manifest and lock texts, and the packages the lock resolves. */
export interface NpmInstallRequest {
  manifestText: string;
  lockText: string;
  packages: readonly LockedNpmPackage[];
  /** Leave devDependencies out (a submission's subject needs none). */
  omitDev: boolean;
}

/** Bounds of one install. */
export interface InstallLimits {
  maxInstalledBytes: number;
  maxInstallMs: number;
}

/** Where and with what an install runs. */
export interface InstallContext {
  /** The cache root (`<WORK_DIR>/deps`). */
  cacheDir: string;
  /** The registry the proxy forwards to. */
  registry: string;
  /** npm's CLI script (npm-cli.js of the pinned npm package). */
  npmCli: string;
  nodeBin: string;
  harnessDir: string;
  bwrapBin: string;
  cgroups: CgroupSupport | null;
  /** The host uid the install sandbox runs as (a leased run uid). */
  hostUid: number;
  fetch?: typeof fetch;
  /** The PyPI side (pip-install.ts); absent or without an index, Python locks are refused. */
  pypi?: PypiInstallContext;
}

/** Where Python installs fetch from, and the pip they run. */
export interface PypiInstallContext {
  /** The upstream simple index (RUNNER_PYPI_INDEX); null: Python installs are refused. */
  index: string | null;
  /** Origins wheels may be fetched from besides the index's (RUNNER_PYPI_FILE_HOSTS). */
  fileOrigins: readonly string[];
  /** The Python the sandbox runs pip with (RUNNER_PYTHON_BIN). */
  pythonBin: string;
  /** The site-packages folder holding the pinned pip (the runner's tools venv). */
  pipDir: string;
}

/** An installed tree, ready to mount. */
export interface InstalledTree {
  /** The node_modules folder to mount read-only at /work/node_modules. */
  layer: string;
  key: string;
  cached: boolean;
  packages: number;
  bytes: number;
  durationMs: number;
  /** The proxy's log of this install (empty when cached). */
  requests: ProxyRequest[];
}

/**
 * Why dependencies were refused or did not install; `rule` names what was broken (the lockfile
 * reader's own rule is in `detail`), `package` by whom, where one package is to blame.
 */
export interface InstallError {
  reason: "dependencies";
  rule:
    | "not-allowed"
    | "lockfile-refused"
    | "ecosystem-not-installed"
    | "install-failed"
    | "install-timeout"
    | "install-too-large"
    | "registry-refused"
    | "tree-mismatch"
    | "sandbox";
  package: string | null;
  detail: string;
}

// A lock's `resolved` URLs name npm's public registry, as npm writes them (the lockfile reader's
// default policy allows no other); the proxy fetches the same paths from the runner's configured
// registry (NPM_REGISTRY: the public one, a mirror, or a local one in tests), since npm replaces
// that host with the one it is given.

const MIB = 1024 * 1024;
const NPM_IN_SANDBOX = "/opt/bouts/npm";
const INSTALL_IN_SANDBOX = "/opt/bouts/install";
const PROXY_IN_SANDBOX = "/opt/bouts/registry";
const PROJECT_IN_SANDBOX = "/project";
/** Short: a Unix socket's whole path must fit in 108 bytes. */
const SOCKET_NAME = "r.sock";
/**
 * The sandbox limits of an install (npm's or pip's): the installer's own memory plus the capped
 * folder's tmpfs pages (charged to the sandbox's memory cgroup), CPU for twice the wall time,
 * files up to the byte cap, within the install's wall time.
 */
export function buildInstallSandboxLimits(
  limits: InstallLimits,
  o: { toolMemoryMb: number; addressSpaceMb: number | null },
): SandboxLimits {
  return {
    memoryMb: o.toolMemoryMb + Math.ceil(limits.maxInstalledBytes / MIB),
    cpuSeconds: Math.max(10, Math.ceil((limits.maxInstallMs / 1000) * 2)),
    maxProcesses: 64,
    maxOpenFiles: 1024,
    maxFileSizeMb: Math.max(1, Math.ceil(limits.maxInstalledBytes / MIB)),
    maxOutputBytes: MIB,
    wallMs: limits.maxInstallMs,
    addressSpaceMb: o.addressSpaceMb,
  };
}

/** Caps for `scratchMountOptions` when the mount has its own (they are then not read). */
export const NO_CAPS = computeScratchCaps({ memoryMb: 32, maxFileSizeMb: 1 }, 0);

/** The cache key: sha256 of the lockfile's bytes, the options and the installer's version. */
export function computeInstallKey(request: NpmInstallRequest): string {
  return createHash("sha256")
    .update(NPM_INSTALLER_VERSION)
    .update("\0")
    .update(request.omitDev ? "omit-dev" : "all")
    .update("\0")
    .update(request.lockText)
    .digest("hex");
}

export function fail(
  rule: InstallError["rule"],
  detail: string,
  pkg: string | null = null,
): Result<never, InstallError> {
  return err({ reason: "dependencies", rule, package: pkg, detail: detail.slice(0, 2000) });
}

/** The project the sandbox installs: package.json's dependency fields and the lock, no more. */
function writeProject(dir: string, request: NpmInstallRequest): void {
  const parsed = JSON.parse(request.manifestText) as Record<string, unknown>;
  const manifest: Record<string, unknown> = { name: "bouts-install", version: "0.0.0" };
  for (const field of ["dependencies", "devDependencies", "optionalDependencies"])
    if (typeof parsed[field] === "object" && parsed[field] !== null)
      manifest[field] = parsed[field];
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest));
  writeFileSync(path.join(dir, "package-lock.json"), request.lockText);
}

/**
 * Copies `src` to `dest` keeping regular files and folders only: a link npm made (or a tarball
 * carried) is dropped, never followed. Answers the bytes copied.
 */
export function copyTree(src: string, dest: string): number {
  let bytes = 0;
  cpSync(src, dest, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (from) => {
      const st = lstatSync(from);
      if (st.isFile()) bytes += st.size;
      return st.isFile() || st.isDirectory();
    },
  });
  return bytes;
}

/**
 * Every package the install should have produced (lock keys, relative to the project folder `root`),
 * at its locked version; the first that is not.
 */
function findMismatch(
  root: string,
  packages: readonly LockedNpmPackage[],
  omitDev: boolean,
): { spec: string; detail: string } | null {
  for (const p of packages) {
    if (omitDev && p.dev) continue;
    const file = path.join(root, p.path, "package.json");
    const spec = `${p.name}@${p.version}`;
    let found: { name?: unknown; version?: unknown };
    try {
      found = JSON.parse(readFileSync(file, "utf8")) as typeof found;
    } catch {
      return { spec, detail: `${p.path} is missing from the installed tree` };
    }
    if (found.name !== p.name || found.version !== p.version)
      return { spec, detail: `${p.path} holds another package than the lock names` };
  }
  return null;
}

/**
 * True when the capped folder `dir` has less than a block per thousand (at least 64 KiB) or no
 * inode left: whatever is in it may have been cut short by the cap.
 */
export function isNearlyFull(dir: string): boolean {
  const s = statfsSync(dir);
  const margin = Math.max(64 * 1024, Math.floor((s.blocks * s.bsize) / 1000));
  return s.bavail * s.bsize < margin || s.ffree === 0;
}

/** The first npm error line worth showing (npm prefixes them `npm error`). */
function summarizeNpmError(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("npm error") && !/A complete log|npm error\s*$/.test(l));
  return (lines.slice(0, 6).join("; ") || stderr.slice(-800)).slice(0, 1500);
}

const inFlight = new Map<string, Promise<Result<InstalledTree, InstallError>>>();

/**
 * Installs `request` (or finds it installed) and answers the tree to mount. Concurrent calls
 * for one lock share one install.
 */
export function installNpmDependencies(
  request: NpmInstallRequest,
  limits: InstallLimits,
  context: InstallContext,
): Promise<Result<InstalledTree, InstallError>> {
  const key = computeInstallKey(request);
  const pending = inFlight.get(key);
  if (pending) return pending;
  const p = installUncached(key, request, limits, context).finally(() => inFlight.delete(key));
  inFlight.set(key, p);
  return p;
}

async function installUncached(
  key: string,
  request: NpmInstallRequest,
  limits: InstallLimits,
  context: InstallContext,
): Promise<Result<InstalledTree, InstallError>> {
  const t0 = performance.now();
  const wanted = request.packages.filter((p) => !(request.omitDev && p.dev));
  const final = path.join(context.cacheDir, "npm", key);
  const layer = path.join(final, "node_modules");
  const readyFile = path.join(final, "ready.json");
  if (existsSync(readyFile)) {
    const ready = JSON.parse(readFileSync(readyFile, "utf8")) as { bytes: number };
    return ok({
      layer,
      key,
      cached: true,
      packages: wanted.length,
      bytes: ready.bytes,
      durationMs: performance.now() - t0,
      requests: [],
    });
  }
  // One folder per attempt, beside the cache (renamed into place only when complete).
  const work = path.join(
    context.cacheDir,
    "tmp",
    `${key.slice(0, 8)}${randomBytes(4).toString("hex")}`,
  );
  const project = path.join(work, "project");
  const proxyDir = path.join(work, "registry");
  mkdirSync(proxyDir, { recursive: true, mode: 0o755 });
  mkdirSync(project, { recursive: true, mode: 0o755 });
  let proxy: Awaited<ReturnType<typeof startRegistryProxy>> | null = null;
  let projectMounted = false;
  try {
    // The project folder is the install's only writable place besides /tmp: a tmpfs capped at
    // the byte limit (package.json and the lock are written once it is mounted).
    const mounted = await mountScratchDir(
      project,
      scratchMountOptions(PROJECT_IN_SANDBOX, NO_CAPS, context.hostUid, limits.maxInstalledBytes),
    );
    if (!mounted.ok)
      return fail("sandbox", `cannot cap the install folder: ${mounted.error.detail}`);
    projectMounted = true;
    writeProject(project, request);
    proxy = await startRegistryProxy({
      socketPath: path.join(proxyDir, SOCKET_NAME),
      upstream: context.registry,
      allowed: wanted.map((p) => ({
        path: tarballPath(p),
        spec: `${p.name}@${p.version}`,
        integrity: p.integrity,
      })),
      maxTarballBytes: limits.maxInstalledBytes,
      maxTotalBytes: limits.maxInstalledBytes,
      fetchTimeoutMs: Math.min(60_000, limits.maxInstallMs),
      fetch: context.fetch,
    });
    // npm's own 1 GiB, and the capped folder's tmpfs pages, which are charged to the sandbox's
    // memory cgroup: a tree that fits its cap never runs the sandbox out of memory.
    const sandboxLimits = buildInstallSandboxLimits(limits, {
      toolMemoryMb: 1024,
      addressSpaceMb: context.cgroups ? null : 8192,
    });
    const outcome = await runSandboxed({
      bwrapBin: context.bwrapBin,
      hostUid: context.hostUid,
      argv: [
        "/opt/bouts/bin/node",
        `${INSTALL_IN_SANDBOX}/npm-install.mjs`,
        `${PROXY_IN_SANDBOX}/${SOCKET_NAME}`,
        `${NPM_IN_SANDBOX}/bin/npm-cli.js`,
        "--ignore-scripts",
        "--no-bin-links",
        "--no-audit",
        "--no-fund",
        "--no-update-notifier",
        // The proxy is on this machine: a failure is an answer, not a flaky network.
        "--fetch-retries=0",
        "--cache=/tmp/npm-cache",
        "--userconfig=/tmp/no-user-npmrc",
        "--globalconfig=/tmp/no-global-npmrc",
        // Warnings too: a file npm could not finish writing is only a warning to it.
        "--loglevel=warn",
        ...(request.omitDev ? ["--omit=dev"] : []),
      ],
      env: { PATH: "/usr/bin:/bin", HOME: "/tmp", TMPDIR: "/tmp", LANG: "C.UTF-8" },
      cwd: PROJECT_IN_SANDBOX,
      readOnlyMounts: [
        { src: context.nodeBin, dest: "/opt/bouts/bin/node" },
        { src: path.dirname(path.dirname(context.npmCli)), dest: NPM_IN_SANDBOX },
        { src: path.join(context.harnessDir, "install"), dest: INSTALL_IN_SANDBOX },
        { src: proxyDir, dest: PROXY_IN_SANDBOX },
      ],
      writableMounts: [
        { src: project, dest: PROJECT_IN_SANDBOX, capBytes: limits.maxInstalledBytes },
      ],
      limits: sandboxLimits,
      cgroups: context.cgroups,
      name: `install-${key.slice(0, 12)}`,
    });
    const refused = proxy.requests.find((r) => r.refused !== undefined);
    if (!outcome.started) return fail("sandbox", outcome.startError);
    if (outcome.timedOut)
      return fail("install-timeout", `the install took longer than ${limits.maxInstallMs} ms`);
    if (refused) {
      const spec = wanted.find((p) => tarballPath(p) === refused.path);
      const rule = /byte limit/.test(refused.refused ?? "")
        ? "install-too-large"
        : "registry-refused";
      return fail(
        rule,
        `the registry proxy refused ${refused.path}: ${refused.refused}`,
        spec ? `${spec.name}@${spec.version}` : null,
      );
    }
    // npm reports a file it could not finish writing (ENOSPC on the capped folder) as a warning
    // and still exits 0, leaving a truncated tree: a folder that filled up is a failed install,
    // whatever npm answered.
    const filled = isNearlyFull(project) || /TAR_ENTRY_ERROR|ENOSPC/.test(outcome.stderr);
    if (outcome.exitCode === 0 && filled)
      return fail(
        "install-too-large",
        `the installed tree filled its ${limits.maxInstalledBytes}-byte folder (a file was cut short)`,
      );
    if (outcome.exitCode !== 0) {
      // A full folder, or npm's own stop at a decompression ratio over 1000 (a tarball bomb).
      const full = /ENOSPC|EFBIG|no space left|max decompression ratio/i.test(outcome.stderr);
      return fail(
        full ? "install-too-large" : "install-failed",
        full
          ? `the installed tree is larger than ${limits.maxInstalledBytes} bytes: ${summarizeNpmError(outcome.stderr)}`
          : `npm ci exited ${outcome.exitCode ?? outcome.signal}: ${summarizeNpmError(outcome.stderr)}`,
      );
    }
    const mismatch = findMismatch(project, wanted, request.omitDev);
    if (mismatch) return fail("tree-mismatch", mismatch.detail, mismatch.spec);
    const staged = path.join(work, "tree");
    mkdirSync(staged, { mode: 0o755 });
    const nodeModules = path.join(project, "node_modules");
    const bytes = existsSync(nodeModules)
      ? copyTree(nodeModules, path.join(staged, "node_modules"))
      : (mkdirSync(path.join(staged, "node_modules"), { mode: 0o755 }), 0);
    writeFileSync(
      path.join(staged, "ready.json"),
      JSON.stringify({ key, packages: wanted.length, bytes, installer: NPM_INSTALLER_VERSION }),
    );
    mkdirSync(path.dirname(final), { recursive: true, mode: 0o755 });
    try {
      renameSync(staged, final);
    } catch {
      // Another runner process installed the same lock first: its tree is the same one.
      if (!existsSync(readyFile)) throw new Error(`cannot place the installed tree at ${final}`);
    }
    return ok({
      layer,
      key,
      cached: false,
      packages: wanted.length,
      bytes,
      durationMs: performance.now() - t0,
      requests: proxy.requests,
    });
  } finally {
    await proxy?.close();
    if (projectMounted) await unmountScratchDir(project);
    rmSync(work, { recursive: true, force: true });
  }
}

/** Where the registry serves a package's tarball, as the proxy is asked for it. */
const tarballPath = (p: LockedNpmPackage) => `/${canonicalTarballPath(p.name, p.version)}`;

/** Lists the cached trees (for tests and the cache's own housekeeping). */
export function listInstalledTrees(cacheDir: string): string[] {
  const dir = path.join(cacheDir, "npm");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}
