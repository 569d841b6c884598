/**
 * The sandboxed npm install (src/deps): a lock's packages come from a local registry
 * (@bouts/fixtures) through the host's allowlisting proxy into a sandbox with no network, are
 * cached by the lock's hash, and every hostile package is refused or contained: an install script
 * that would reach the network or the file system never runs, a tarball the lock does not name is
 * never served, a dependency bomb stops at the byte cap, a tarball that does not match the lock's
 * integrity is refused. Nothing here runs package code outside the sandbox (nor inside it: npm
 * runs with --ignore-scripts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { randomBytes } from "node:crypto";
import {
  buildNpmProject,
  buildPackage,
  startLocalNpmRegistry,
  type BuiltPackage,
  type LocalNpmRegistry,
} from "@bouts/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installNpmDependencies,
  listInstalledTrees,
  type InstallContext,
  type LockedNpmPackage,
  type NpmInstallRequest,
} from "../src/deps/install.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import { createTestEnvironment } from "./helpers.ts";

const NPM_CLI = path.join(
  path.dirname(createRequire(import.meta.url).resolve("npm/package.json")),
  "bin/npm-cli.js",
);
const MIB = 1024 * 1024;
const LIMITS = { maxInstalledBytes: 16 * MIB, maxInstallMs: 60_000 };

let environment: RunnerEnvironment;
let registry: LocalNpmRegistry;
let context: InstallContext;

const leftPad = buildPackage({
  name: "left-pad",
  version: "1.3.0",
  files: { "index.js": "module.exports = (s, n, c = ' ') => String(s).padStart(n, c);\n" },
});
const scoped = buildPackage({
  name: "@fixture/greet",
  version: "2.0.1",
  dependencies: { "left-pad": "1.3.0" },
  files: { "index.js": "module.exports = (n) => 'hello ' + n;\n" },
});
/**
 * Its install scripts, were they run, would leave files in its own folder (which the cached tree
 * keeps): one written by each script, and one naming how a network call to the host ended.
 */
const scripted = buildPackage({
  name: "postinstall-probe",
  version: "1.0.0",
  scripts: {
    preinstall: "node -e \"require('fs').writeFileSync('PWNED-PRE', 'x')\"",
    install:
      "node -e \"require('http').get('http://127.0.0.1:9/').on('error', (e) => require('fs').writeFileSync('NET-' + e.code, ''))\"",
    postinstall: "node -e \"require('fs').writeFileSync('PWNED-POST', 'x')\"",
  },
  files: { "index.js": "module.exports = 1;\n" },
});
/** 40 MiB of random bytes (incompressible): larger than the install's 16 MiB cap. */
const bomb = buildPackage({
  name: "dependency-bomb",
  version: "1.0.0",
  files: { "blob.bin": randomBytes(40 * MIB) },
});

/** 256 MiB of zeros: a tarball of a few hundred KiB (npm stops at a ratio over 1000). */
const zeros = buildPackage({
  name: "zeros-bomb",
  version: "1.0.0",
  files: { "zeros.bin": new Uint8Array(256 * MIB) },
});
/** 8 MiB of noise and 32 MiB of zeros: under the cap packed, over it unpacked, at a ratio of 5. */
const expanding = buildPackage({
  name: "expanding-bomb",
  version: "1.0.0",
  files: { "noise.bin": randomBytes(8 * MIB), "zeros.bin": new Uint8Array(32 * MIB) },
});

function locked(project: { lock: string }): LockedNpmPackage[] {
  const lock = JSON.parse(project.lock) as {
    packages: Record<string, { version?: string; integrity?: string; dev?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([key]) => key !== "")
    .map(([key, entry]) => ({
      path: key,
      name: key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length),
      version: entry.version ?? "",
      integrity: entry.integrity ?? "",
      dev: entry.dev === true,
    }));
}

function request(direct: Record<string, string>, packages: BuiltPackage[]): NpmInstallRequest {
  const project = buildNpmProject(direct, packages);
  return {
    manifestText: project.manifest,
    lockText: project.lock,
    packages: locked(project),
    omitDev: true,
  };
}

beforeAll(async () => {
  environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
  registry = await startLocalNpmRegistry([leftPad, scoped, scripted, bomb, zeros, expanding]);
  const cacheDir = path.join(environment.config.WORK_DIR, "deps");
  mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
  context = {
    cacheDir,
    registry: registry.url,
    npmCli: NPM_CLI,
    nodeBin: environment.paths.nodeBin,
    harnessDir: environment.paths.harnessDir,
    bwrapBin: environment.config.BWRAP_BIN,
    cgroups: environment.cgroups,
    hostUid: environment.config.UID_BASE,
  };
});

afterAll(async () => {
  await registry?.close();
});

describe("sandboxed npm install", () => {
  it("installs a lock's packages, scoped and nested, through the proxy only", async () => {
    const r = await installNpmDependencies(
      request({ "@fixture/greet": "2.0.1", "left-pad": "1.3.0" }, [scoped, leftPad]),
      LIMITS,
      context,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.cached).toBe(false);
    expect(r.value.packages).toBe(2);
    const pkg = JSON.parse(
      readFileSync(path.join(r.value.layer, "@fixture/greet/package.json"), "utf8"),
    ) as { version: string };
    expect(pkg.version).toBe("2.0.1");
    expect(existsSync(path.join(r.value.layer, "left-pad/index.js"))).toBe(true);
    // Only the two tarballs went through the proxy, each served once, nothing refused.
    expect(r.value.requests.map((q) => [q.path, q.status]).sort()).toEqual([
      ["/@fixture/greet/-/greet-2.0.1.tgz", 200],
      ["/left-pad/-/left-pad-1.3.0.tgz", 200],
    ]);
    // No .bin links, no links at all, in the cached tree.
    expect(existsSync(path.join(r.value.layer, ".bin"))).toBe(false);
  }, 120_000);

  it("answers the same lock from the cache, with no request to the registry", async () => {
    const before = registry.requests.length;
    const r = await installNpmDependencies(
      request({ "@fixture/greet": "2.0.1", "left-pad": "1.3.0" }, [scoped, leftPad]),
      LIMITS,
      context,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.cached).toBe(true);
    expect(registry.requests.length).toBe(before);
    expect(r.value.durationMs).toBeLessThan(300);
  }, 60_000);

  it("never runs an install script: nothing it would write exists, nothing it would fetch was asked", async () => {
    const r = await installNpmDependencies(
      request({ "postinstall-probe": "1.0.0" }, [scripted]),
      LIMITS,
      context,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const files = readdirSync(path.dirname(r.value.layer));
    expect(files.sort()).toEqual(["node_modules", "ready.json"]);
    expect(readdirSync(path.join(r.value.layer, "postinstall-probe")).sort()).toEqual([
      "index.js",
      "package.json",
    ]);
    expect(r.value.requests.every((q) => q.refused === undefined)).toBe(true);
  }, 120_000);

  it("stops a dependency bomb at the byte cap and caches nothing", async () => {
    const before = listInstalledTrees(context.cacheDir);
    const r = await installNpmDependencies(
      request({ "dependency-bomb": "1.0.0" }, [bomb]),
      LIMITS,
      context,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.rule).toBe("install-too-large");
    expect(r.error.package).toBe("dependency-bomb@1.0.0");
    expect(listInstalledTrees(context.cacheDir)).toEqual(before);
  }, 120_000);

  it("stops a tarball that expands a thousandfold, and caches nothing", async () => {
    const before = listInstalledTrees(context.cacheDir);
    const r = await installNpmDependencies(
      request({ "zeros-bomb": "1.0.0" }, [zeros]),
      LIMITS,
      context,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.rule).toBe("install-too-large");
    expect(listInstalledTrees(context.cacheDir)).toEqual(before);
  }, 120_000);

  it("stops a tarball that expands past the cap on the capped folder, and caches nothing", async () => {
    expect(expanding.tarball.byteLength).toBeLessThan(LIMITS.maxInstalledBytes);
    const before = listInstalledTrees(context.cacheDir);
    const r = await installNpmDependencies(
      request({ "expanding-bomb": "1.0.0" }, [expanding]),
      LIMITS,
      context,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.rule).toBe("install-too-large");
    expect(listInstalledTrees(context.cacheDir)).toEqual(before);
  }, 120_000);

  it("reaches no host but the proxy: a lock resolved at another address fails, unfetched", async () => {
    // The fixture registry listens on the host's loopback, which the sandbox does not share:
    // a lock pointing straight at it (not at npm's registry, which the proxy stands in for)
    // cannot be fetched at all.
    const direct = buildNpmProject({ "left-pad": "1.3.0" }, [leftPad], registry.url);
    const before = registry.requests.length;
    const r = await installNpmDependencies(
      {
        manifestText: direct.manifest,
        lockText: direct.lock,
        packages: locked(direct),
        omitDev: true,
      },
      LIMITS,
      context,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.rule).toBe("install-failed");
    expect(r.error.detail).toMatch(/ECONNREFUSED|ENETUNREACH|EAI_AGAIN/);
    expect(registry.requests.length).toBe(before);
  }, 120_000);

  it("refuses a tarball whose bytes are not the lock's, naming the package", async () => {
    const project = buildNpmProject({ "left-pad": "1.3.0" }, [leftPad]);
    const forged = project.lock.replace(leftPad.integrity, scoped.integrity);
    const r = await installNpmDependencies(
      {
        manifestText: project.manifest,
        lockText: forged,
        packages: locked({ lock: forged }),
        omitDev: true,
      },
      LIMITS,
      context,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.rule).toBe("registry-refused");
    expect(r.error.package).toBe("left-pad@1.3.0");
    expect(r.error.detail).toMatch(/integrity/);
  }, 120_000);
});
