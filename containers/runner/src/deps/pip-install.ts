/**
 * @module runner/deps/pip-install
 * Installs a Python lockfile's releases (a hashed requirements.txt or a uv.lock, as the lockfile
 * reader resolved them) in a sandbox of their own, once per lock: the install sandbox has no
 * network but a relay to the host's PyPI proxy (pypi-proxy.ts), a simple index generated from the
 * lock that serves only the lock's wheels, from the one configured index, each checked against
 * the lock's sha256; pip runs --only-binary :all: --require-hashes --no-deps --isolated (no
 * package code runs: a wheel is unpacked, never built); the tree lands on a tmpfs capped at the
 * install's byte limit, within its time limit. The host then checks that the tree holds every
 * locked distribution at its version and no other, copies it (no link followed or kept) into a
 * cache folder named by the sha256 of the lock, the options and pip's version, and marks it
 * ready. Runs mount that folder read-only at /opt/bouts/deps (the python harness puts it on
 * sys.path). Invariants: as install.ts's.
 */
import * as pep440 from "@renovatebot/pep440";
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { ResolvedPackage } from "@bouts/dependencies";
import { ok, type Result } from "@bouts/result";
import { runSandboxed, scratchMountOptions } from "../sandbox/sandbox.ts";
import { mountScratchDir, unmountScratchDir } from "../sandbox/scratch-mount.ts";
import {
  copyTree,
  fail,
  buildInstallSandboxLimits,
  isNearlyFull,
  NO_CAPS,
  type InstallContext,
  type InstalledTree,
  type InstallError,
  type InstallLimits,
} from "./install.ts";
import { normalizeProjectName, startPypiProxy, type PypiProxy } from "./pypi-proxy.ts";

/** Changes whenever what a pip install produces could change: part of the cache key. */
export const PIP_INSTALLER_VERSION = "pip-install/1";

/** What to install: the lockfile's name and text, and the releases it resolves. */
export interface PythonInstallRequest {
  lockfile: string;
  lockText: string;
  packages: readonly ResolvedPackage[];
}

const PIP_IN_SANDBOX = "/opt/bouts/pytools";
const INSTALL_IN_SANDBOX = "/opt/bouts/install";
const PROXY_IN_SANDBOX = "/opt/bouts/registry";
const PROJECT_IN_SANDBOX = "/project";
const SOCKET_NAME = "r.sock";

/** The pinned pip's version, from its dist-info folder in `pipDir`. */
export function readPipVersion(pipDir: string): string | null {
  try {
    const info = readdirSync(pipDir).find((n) => /^pip-[^-]+\.dist-info$/.test(n));
    return info ? info.slice(4, -".dist-info".length) : null;
  } catch {
    return null;
  }
}

/** The sha256 hex digests a package's integrity (`sha256:<hex> …`) allows. */
const hashesOf = (p: ResolvedPackage) =>
  p.integrity
    .split(" ")
    .filter((h) => h.startsWith("sha256:"))
    .map((h) => h.slice(7).toLowerCase());

/** The requirements pip is given: every release pinned with its hashes, nothing else. */
export function renderRequirements(packages: readonly ResolvedPackage[]): string {
  return packages
    .map(
      (p) =>
        `${p.name}==${p.version} ${hashesOf(p)
          .map((h) => `--hash=sha256:${h}`)
          .join(" ")}\n`,
    )
    .join("");
}

/** The cache key: sha256 of the installer's version, pip's, the lockfile and what pip is given. */
export function computePythonInstallKey(request: PythonInstallRequest, pipVersion: string): string {
  return createHash("sha256")
    .update(PIP_INSTALLER_VERSION)
    .update("\0")
    .update(pipVersion)
    .update("\0")
    .update(request.lockfile)
    .update("\0")
    .update(request.lockText)
    .update("\0")
    .update(renderRequirements(request.packages))
    .digest("hex");
}

/** A METADATA file's Name and Version headers. */
function readMetadata(file: string): { name: string; version: string } | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const head = text.split(/\r?\n\r?\n/, 1)[0] ?? "";
  const name = /^Name:\s*(.+?)\s*$/m.exec(head)?.[1];
  const version = /^Version:\s*(.+?)\s*$/m.exec(head)?.[1];
  return name && version ? { name, version } : null;
}

/**
 * Whether two versions are the same release as PEP 440 compares them for `==`
 * (`@renovatebot/pep440`: `1.0` is `1.0.0`, `V1.2RC1` is `1.2rc1`); versions PEP 440 cannot
 * read are the same only when their text is.
 */
export function samePythonVersion(a: string, b: string): boolean {
  return pep440.valid(a) !== null && pep440.valid(b) !== null ? pep440.eq(a, b) : a === b;
}

/** The first difference between the installed distributions in `site` and the lock's. */
function findPythonMismatch(
  site: string,
  packages: readonly ResolvedPackage[],
): { spec: string | null; detail: string } | null {
  const installed = new Map<string, string>();
  const entries = existsSync(site) ? readdirSync(site) : [];
  for (const entry of entries.filter((e) => e.endsWith(".dist-info"))) {
    const meta = readMetadata(path.join(site, entry, "METADATA"));
    if (!meta) return { spec: null, detail: `${entry} has no readable METADATA` };
    installed.set(normalizeProjectName(meta.name), meta.version);
  }
  for (const p of packages) {
    const spec = `${p.name}==${p.version}`;
    const version = installed.get(normalizeProjectName(p.name));
    if (version === undefined)
      return { spec, detail: `${p.name} is missing from the installed tree` };
    if (!samePythonVersion(version, p.version))
      return { spec, detail: `${p.name} is installed at ${version}, not the locked ${p.version}` };
  }
  const locked = new Set(packages.map((p) => normalizeProjectName(p.name)));
  for (const [name, version] of installed)
    if (!locked.has(name))
      return { spec: `${name}==${version}`, detail: `${name} is installed but not locked` };
  return null;
}

/** pip's error lines worth showing. */
function summarizePipError(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("ERROR:"));
  return (lines.slice(0, 6).join("; ") || stderr.slice(-800)).slice(0, 1500);
}

const inFlight = new Map<string, Promise<Result<InstalledTree, InstallError>>>();

/**
 * Installs `request` with pip (or finds it installed) and answers the tree to mount. Concurrent
 * calls for one lock share one install.
 */
export function installPythonDependencies(
  request: PythonInstallRequest,
  limits: InstallLimits,
  context: InstallContext,
): Promise<Result<InstalledTree, InstallError>> {
  const pypi = context.pypi;
  if (!pypi?.index)
    return Promise.resolve(
      fail(
        "ecosystem-not-installed",
        `${request.lockfile}: Python dependencies need an index to install from, and this runner has none (set RUNNER_PYPI_INDEX)`,
      ),
    );
  const pipVersion = readPipVersion(pypi.pipDir);
  if (pipVersion === null)
    return Promise.resolve(fail("sandbox", `no pip in ${pypi.pipDir} (run npm run setup)`));
  // A lock that names its files (uv.lock) may name them on the index's host or an allowed file
  // host only: checked before anything is fetched.
  const origins = new Set([
    new URL(pypi.index).origin,
    ...pypi.fileOrigins.map((o) => new URL(o).origin),
  ]);
  for (const p of request.packages)
    for (const url of [...(p.files ?? []).map((f) => f.url), ...(p.resolved ? [p.resolved] : [])]) {
      let origin: string | null = null;
      try {
        origin = new URL(url).origin;
      } catch {
        // An unreadable URL is as foreign as another host's.
      }
      if (origin === null || !origins.has(origin))
        return Promise.resolve(
          fail(
            "registry-refused",
            `${request.lockfile} names ${url.slice(0, 200)}, which is not on the configured index's host (${[...origins].join(", ")})`,
            `${p.name}==${p.version}`,
          ),
        );
    }
  const key = computePythonInstallKey(request, pipVersion);
  const pending = inFlight.get(key);
  if (pending) return pending;
  const p = installUncached(key, pipVersion, request, limits, context, pypi).finally(() =>
    inFlight.delete(key),
  );
  inFlight.set(key, p);
  return p;
}

async function installUncached(
  key: string,
  pipVersion: string,
  request: PythonInstallRequest,
  limits: InstallLimits,
  context: InstallContext,
  pypi: NonNullable<InstallContext["pypi"]>,
): Promise<Result<InstalledTree, InstallError>> {
  const t0 = performance.now();
  const final = path.join(context.cacheDir, "pypi", key);
  const layer = path.join(final, "site");
  const readyFile = path.join(final, "ready.json");
  if (existsSync(readyFile)) {
    const ready = JSON.parse(readFileSync(readyFile, "utf8")) as { bytes: number };
    return ok({
      layer,
      key,
      cached: true,
      packages: request.packages.length,
      bytes: ready.bytes,
      durationMs: performance.now() - t0,
      requests: [],
    });
  }
  const work = path.join(
    context.cacheDir,
    "tmp",
    `${key.slice(0, 8)}${randomBytes(4).toString("hex")}`,
  );
  const project = path.join(work, "project");
  const proxyDir = path.join(work, "registry");
  mkdirSync(proxyDir, { recursive: true, mode: 0o755 });
  mkdirSync(project, { recursive: true, mode: 0o755 });
  const fetchTimeoutMs = Math.min(60_000, limits.maxInstallMs);
  let proxy: PypiProxy | null = null;
  let projectMounted = false;
  try {
    // The project folder is the install's only writable place besides /tmp: a tmpfs capped at
    // the byte limit, holding the requirements, pip's temporary folder and the target.
    const mounted = await mountScratchDir(
      project,
      scratchMountOptions(PROJECT_IN_SANDBOX, NO_CAPS, context.hostUid, limits.maxInstalledBytes),
    );
    if (!mounted.ok)
      return fail("sandbox", `cannot cap the install folder: ${mounted.error.detail}`);
    projectMounted = true;
    writeFileSync(path.join(project, "requirements.txt"), renderRequirements(request.packages));
    mkdirSync(path.join(project, "tmp"), { mode: 0o777 });
    proxy = await startPypiProxy({
      socketPath: path.join(proxyDir, SOCKET_NAME),
      index: pypi.index!,
      fileOrigins: pypi.fileOrigins,
      releases: request.packages.map((p) => ({
        name: p.name,
        version: p.version,
        sha256: hashesOf(p),
        ...(p.files
          ? {
              files: p.files.map((f) => ({
                url: f.url,
                sha256: f.hash.replace(/^sha256:/, "").toLowerCase(),
              })),
            }
          : {}),
      })),
      maxFileBytes: limits.maxInstalledBytes,
      maxTotalBytes: limits.maxInstalledBytes,
      fetchTimeoutMs,
      fetch: context.fetch,
    });
    const sandboxLimits = buildInstallSandboxLimits(limits, {
      toolMemoryMb: 512,
      addressSpaceMb: context.cgroups ? null : 4096,
    });
    const outcome = await runSandboxed({
      bwrapBin: context.bwrapBin,
      hostUid: context.hostUid,
      argv: [
        pypi.pythonBin,
        "-I",
        "-B",
        `${INSTALL_IN_SANDBOX}/pip-install.py`,
        `${PROXY_IN_SANDBOX}/${SOCKET_NAME}`,
        PIP_IN_SANDBOX,
        "--isolated",
        "--no-cache-dir",
        "--disable-pip-version-check",
        "--no-input",
        "--only-binary=:all:",
        "--require-hashes",
        "--no-deps",
        "--no-compile",
        "--no-warn-script-location",
        "--progress-bar=off",
        // The proxy is on this machine: a failure is an answer, not a flaky network.
        "--retries=0",
        // The proxy answers a file only once it holds all of it (to check its hash): pip waits
        // as long as the proxy's own upstream deadline, not its default 15 s.
        `--timeout=${Math.ceil(fetchTimeoutMs / 1000) + 5}`,
        `--target=${PROJECT_IN_SANDBOX}/site`,
        `--requirement=${PROJECT_IN_SANDBOX}/requirements.txt`,
      ],
      env: {
        PATH: "/usr/bin:/bin",
        HOME: "/tmp",
        TMPDIR: `${PROJECT_IN_SANDBOX}/tmp`,
        LANG: "C.UTF-8",
        PIP_CONFIG_FILE: "/dev/null",
      },
      cwd: PROJECT_IN_SANDBOX,
      readOnlyMounts: [
        { src: pypi.pipDir, dest: PIP_IN_SANDBOX },
        { src: path.join(context.harnessDir, "install"), dest: INSTALL_IN_SANDBOX },
        { src: proxyDir, dest: PROXY_IN_SANDBOX },
      ],
      writableMounts: [
        { src: project, dest: PROJECT_IN_SANDBOX, capBytes: limits.maxInstalledBytes },
      ],
      limits: sandboxLimits,
      cgroups: context.cgroups,
      name: `pip-install-${key.slice(0, 12)}`,
    });
    const refused = proxy.requests.find((r) => r.refused !== undefined);
    if (!outcome.started) return fail("sandbox", outcome.startError);
    if (outcome.timedOut)
      return fail("install-timeout", `the install took longer than ${limits.maxInstallMs} ms`);
    if (refused) {
      const spec = /^([^:]+==[^:]+):/.exec(refused.refused ?? "")?.[1] ?? null;
      const rule = /byte limit/.test(refused.refused ?? "")
        ? "install-too-large"
        : "registry-refused";
      return fail(rule, `the PyPI proxy refused ${refused.path}: ${refused.refused}`, spec);
    }
    const missing = proxy.missing[0];
    if (outcome.exitCode !== 0 && missing)
      return fail("registry-refused", `${missing.spec}: ${missing.detail}`, missing.spec);
    const filled = isNearlyFull(project) || /No space left|ENOSPC/i.test(outcome.stderr);
    if (filled)
      return fail(
        "install-too-large",
        `the installed tree filled its ${limits.maxInstalledBytes}-byte folder`,
      );
    if (outcome.exitCode !== 0)
      return fail(
        "install-failed",
        `pip install exited ${outcome.exitCode ?? outcome.signal}: ${summarizePipError(outcome.stderr)}`,
      );
    const site = path.join(project, "site");
    const mismatch = findPythonMismatch(site, request.packages);
    if (mismatch) return fail("tree-mismatch", mismatch.detail, mismatch.spec);
    const staged = path.join(work, "tree");
    mkdirSync(staged, { mode: 0o755 });
    const bytes = copyTree(site, path.join(staged, "site"));
    writeFileSync(
      path.join(staged, "ready.json"),
      JSON.stringify({
        key,
        packages: request.packages.length,
        bytes,
        installer: PIP_INSTALLER_VERSION,
        pip: pipVersion,
      }),
    );
    mkdirSync(path.dirname(final), { recursive: true, mode: 0o755 });
    try {
      renameSync(staged, final);
    } catch {
      if (!existsSync(readyFile)) throw new Error(`cannot place the installed tree at ${final}`);
    }
    return ok({
      layer,
      key,
      cached: false,
      packages: request.packages.length,
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

/** Lists the cached Python trees. */
export function listInstalledPythonTrees(cacheDir: string): string[] {
  const dir = path.join(cacheDir, "pypi");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}
