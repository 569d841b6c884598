/**
 * The sandboxed pip install (src/deps/pip-install.ts, pypi-proxy.ts): a Python lock's wheels come
 * from a local simple index (built here, never the real PyPI) through the host's PyPI proxy into
 * a sandbox with no network, are cached by the lock's hash, and mounted read-only for a Python
 * subject; every hostile file is refused: bytes that are not the lock's hash, an sdist-only
 * release, a file on another host (never fetched), a wheel larger than the byte cap. Nothing here
 * runs package code outside the sandbox.
 */
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_DEPENDENCY_POLICY, readRequirements, readUvLock } from "@bouts/dependencies";
import { buildZip } from "@bouts/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeSha256, packDir, type PreparedChallenge } from "../src/challenge/bundle.ts";
import { resolveInstaller } from "../src/challenge/prepare-options.ts";
import type { InstallContext } from "../src/deps/install.ts";
import {
  samePythonVersion,
  computePythonInstallKey,
  installPythonDependencies,
  listInstalledPythonTrees,
  readPipVersion,
  type PythonInstallRequest,
} from "../src/deps/pip-install.ts";
import { runJob, type RunnerEnvironment } from "../src/job.ts";
import { createTestEnvironment, FIXTURES, prepareDir } from "./helpers.ts";

const MIB = 1024 * 1024;
const LIMITS = { maxInstalledBytes: 16 * MIB, maxInstallMs: 60_000 };

interface Wheel {
  name: string;
  version: string;
  filename: string;
  bytes: Buffer;
  sha256: string;
}

/** A pure-Python wheel: `<module>/__init__.py` and its dist-info (METADATA, WHEEL, RECORD). */
function buildWheel(
  name: string,
  version: string,
  init: string,
  extra: Buffer | null = null,
  extraMethod = 0,
) {
  const dist = name.replace(/-/g, "_");
  const info = `${dist}-${version}.dist-info`;
  const files: [string, string | Uint8Array][] = [
    [`${dist}/__init__.py`, init],
    [`${info}/METADATA`, `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n\n`],
    [
      `${info}/WHEEL`,
      "Wheel-Version: 1.0\nGenerator: bouts-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    ],
  ];
  if (extra) files.push([`${dist}/blob.bin`, extra]);
  const record = [...files.map(([f]) => `${f},,`), `${info}/RECORD,,`, ""].join("\n");
  const bytes = buildZip([
    ...files.map(([f, data]) => ({
      name: f,
      data,
      ...(extra && f.endsWith(".bin") ? { method: extraMethod } : {}),
    })),
    { name: `${info}/RECORD`, data: record },
  ]);
  return wheel(name, version, `${dist}-${version}-py3-none-any.whl`, bytes);
}

function wheel(name: string, version: string, filename: string, bytes: Buffer): Wheel {
  return {
    name,
    version,
    filename,
    bytes,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}

/** A loopback simple index: JSON (PEP 691) or HTML pages, each file's link, its log. */
interface LocalIndex {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves `/simple/<name>/` listing each project's files (with the hash each page claims, which
 * may lie) and `/packages/<filename>`; `links` may point a file at another host.
 */
async function startIndex(
  files: { file: Wheel; claims?: string; link?: string }[],
  json: (name: string) => boolean = () => true,
): Promise<LocalIndex> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const page = /^\/simple\/([^/]+)\/$/.exec(req.url ?? "");
    if (page) {
      const listed = files.filter((f) => f.file.name === page[1]);
      if (listed.length === 0) return res.writeHead(404).end();
      const entries = listed.map((f) => ({
        filename: f.file.filename,
        url: f.link ?? `../../packages/${f.file.filename}`,
        hashes: { sha256: f.claims ?? f.file.sha256 },
      }));
      if (json(page[1]!) && (req.headers.accept ?? "").includes("vnd.pypi.simple.v1+json")) {
        res.writeHead(200, { "content-type": "application/vnd.pypi.simple.v1+json" });
        return res.end(
          JSON.stringify({ meta: { "api-version": "1.0" }, name: page[1], files: entries }),
        );
      }
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(
        `<html><body>${entries.map((e) => `<a href="${e.url}#sha256=${e.hashes.sha256}">${e.filename}</a>`).join("\n")}</body></html>`,
      );
    }
    const file = files.find((f) => req.url === `/packages/${f.file.filename}`);
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(file.file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const tinyadd = buildWheel("tinyadd", "1.0.0", "def add(a, b):\n    return a + b\n");
const tinyhelp = buildWheel("tiny-help", "0.2.0", "HELP = 'help'\n");
/** Its page claims the lock's hash; its bytes are another wheel's. */
const honest = buildWheel("swapped", "1.0.0", "X = 1\n");
const swapped = buildWheel("swapped", "1.0.0", "import os\nX = os.system('true')\n");
/** Only an sdist, under the lock's hash. */
const sdist = wheel("sdistonly", "1.0.0", "sdistonly-1.0.0.tar.gz", randomBytes(512));
/** 40 MiB of noise stored uncompressed: over the 16 MiB cap. */
const bomb = buildWheel("wheelbomb", "1.0.0", "", randomBytes(40 * MIB));
/** 64 MiB of zeros deflated to well under the 16 MiB cap: it only overflows once unpacked. */
const zeros = buildWheel("zerobomb", "1.0.0", "", Buffer.alloc(64 * MIB), 8);
/** Listed by the index with a link to another host. */
const elsewhere = buildWheel("elsewhere", "1.0.0", "X = 1\n");

/** A uv.lock pinning `w` from the local index, its files under `files` (and `sdistFile`'s hash). */
function uvLock(w: Wheel, files: string, sdistFile: Wheel | null = null): string {
  const sdistLine = sdistFile
    ? [
        `sdist = { url = "${files}${w.name}-${w.version}.tar.gz", hash = "sha256:${sdistFile.sha256}", size = 512 }`,
      ]
    : [];
  return [
    'version = 1\nrevision = 3\nrequires-python = ">=3.11"',
    `[[package]]\nname = "subject"\nversion = "0.1.0"\nsource = { virtual = "." }\ndependencies = [{ name = "${w.name}" }]\n`,
    [
      "[[package]]",
      `name = "${w.name}"`,
      `version = "${w.version}"`,
      `source = { registry = "${index.url}/simple" }`,
      ...sdistLine,
      `wheels = [{ url = "${files}${w.filename}", hash = "sha256:${w.sha256}", size = ${w.bytes.byteLength} }]`,
      "",
    ].join("\n"),
  ].join("\n\n");
}

let environment: RunnerEnvironment;
let index: LocalIndex;
let other: LocalIndex;
let context: InstallContext;
let work: string;

function request(wheels: Wheel[], hashes?: string[]): PythonInstallRequest {
  const text = wheels
    .map((w, i) => `${w.name}==${w.version} --hash=sha256:${hashes?.[i] ?? w.sha256}\n`)
    .join("");
  const set = readRequirements(text, DEFAULT_DEPENDENCY_POLICY);
  if (!set.ok) throw new Error(JSON.stringify(set.error));
  return { lockfile: "requirements.txt", lockText: text, packages: set.value.packages };
}

beforeAll(async () => {
  other = await startIndex([{ file: elsewhere }]);
  index = await startIndex(
    [
      { file: tinyadd },
      { file: tinyhelp },
      { file: swapped, claims: honest.sha256 },
      { file: sdist },
      { file: bomb },
      { file: zeros },
      { file: elsewhere, link: `${other.url}/packages/${elsewhere.filename}` },
    ],
    (name) => name !== "tiny-help",
  );
  environment = await createTestEnvironment({
    RUNNER_SELF_TEST: "off",
    RUNNER_PYPI_INDEX: `${index.url}/simple/`,
  });
  const installer = resolveInstaller(environment);
  mkdirSync(installer.context.cacheDir, { recursive: true, mode: 0o755 });
  context = { ...installer.context, hostUid: environment.config.UID_BASE };
  work = mkdtempSync(path.join(tmpdir(), "pip-install-"));
}, 60_000);

afterAll(async () => {
  await index?.close();
  await other?.close();
});

describe("sandboxed pip install", () => {
  it("installs a hashed requirements file's wheels through the proxy, then reuses the tree", async () => {
    const req = request([tinyadd, tinyhelp]);
    const before = index.requests.length;
    const r = await installPythonDependencies(req, LIMITS, context);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.cached).toBe(false);
    expect(r.value.layer).toMatch(/\/deps\/pypi\/[0-9a-f]{64}\/site$/);
    expect(readFileSync(path.join(r.value.layer, "tinyadd/__init__.py"), "utf8")).toContain(
      "def add",
    );
    expect(existsSync(path.join(r.value.layer, "tiny_help-0.2.0.dist-info/METADATA"))).toBe(true);
    // The proxy served each project's page (tinyadd's from JSON, tiny-help's from HTML) and each
    // wheel, and refused nothing.
    expect(r.value.requests.filter((q) => q.refused)).toEqual([]);
    expect(r.value.requests.map((q) => q.path)).toEqual(
      expect.arrayContaining([
        "/simple/tinyadd/",
        "/simple/tiny-help/",
        `/files/${tinyadd.sha256}/${tinyadd.filename}`,
        `/files/${tinyhelp.sha256}/${tinyhelp.filename}`,
      ]),
    );
    expect(index.requests.slice(before).sort()).toEqual(
      [
        "/simple/tinyadd/",
        "/simple/tiny-help/",
        `/packages/${tinyadd.filename}`,
        `/packages/${tinyhelp.filename}`,
      ].sort(),
    );
    // Warm: the same lock is the cached tree, and nothing reaches the index.
    const warmBefore = index.requests.length;
    const warm = await installPythonDependencies(req, LIMITS, context);
    if (!warm.ok) throw new Error(JSON.stringify(warm.error));
    expect(warm.value).toMatchObject({ cached: true, layer: r.value.layer, requests: [] });
    expect(index.requests.length).toBe(warmBefore);
    expect(listInstalledPythonTrees(context.cacheDir)).toContain(r.value.key);
  }, 120_000);

  it("installs a uv.lock from the files it names, reading no index page", async () => {
    const text = uvLock(tinyadd, `${index.url}/packages/`, sdist);
    const set = readUvLock(text, {
      ...DEFAULT_DEPENDENCY_POLICY,
      registries: { ...DEFAULT_DEPENDENCY_POLICY.registries, PyPI: [`${index.url}/simple`] },
      pypiFileHosts: [`${index.url}/packages/`],
    });
    if (!set.ok) throw new Error(JSON.stringify(set.error));
    const before = index.requests.length;
    const r = await installPythonDependencies(
      { lockfile: "uv.lock", lockText: text, packages: set.value.packages },
      LIMITS,
      context,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.cached).toBe(false);
    expect(existsSync(path.join(r.value.layer, "tinyadd-1.0.0.dist-info/METADATA"))).toBe(true);
    // The wheel only: no index page, and never the sdist.
    expect(index.requests.slice(before)).toEqual([`/packages/${tinyadd.filename}`]);
  }, 120_000);

  it("checks the tree's versions as pip compares them: a lock's 1.0 is the wheel's 1.0.0", async () => {
    expect(samePythonVersion("1.0", "1.0.0")).toBe(true);
    expect(samePythonVersion("V01.2.0RC1", "1.2rc1")).toBe(true);
    expect(samePythonVersion("1.0.1", "1.0")).toBe(false);
    expect(samePythonVersion("1.0.post1", "1.0")).toBe(false);
    const text = `tinyadd==1.0 --hash=sha256:${tinyadd.sha256}\n`;
    const set = readRequirements(text, DEFAULT_DEPENDENCY_POLICY);
    if (!set.ok) throw new Error(JSON.stringify(set.error));
    const r = await installPythonDependencies(
      { lockfile: "requirements.txt", lockText: text, packages: set.value.packages },
      LIMITS,
      context,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.cached).toBe(false);
  }, 120_000);

  it("refuses a file whose bytes are not the lock's hash, naming the package", async () => {
    const r = await installPythonDependencies(request([swapped], [honest.sha256]), LIMITS, context);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ rule: "registry-refused", package: "swapped==1.0.0" });
    expect(r.error.detail).toContain("does not match the lock's hash");
  }, 120_000);

  it("refuses an sdist-only release: wheels only", async () => {
    const r = await installPythonDependencies(request([sdist]), LIMITS, context);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ rule: "registry-refused", package: "sdistonly==1.0.0" });
    expect(r.error.detail).toMatch(/only wheels/);
    expect(index.requests).not.toContain(`/packages/${sdist.filename}`);
  }, 120_000);

  it("never fetches a file the index links on another host", async () => {
    const r = await installPythonDependencies(request([elsewhere]), LIMITS, context);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ rule: "registry-refused", package: "elsewhere==1.0.0" });
    expect(other.requests).toEqual([]);
  }, 120_000);

  it("refuses a lock naming a file on another host before anything is fetched", async () => {
    // A uv.lock the reader accepts (its policy admits the other host) but the runner's index is
    // not on: nothing may be fetched from either.
    const text = uvLock(tinyadd, `${other.url}/packages/`);
    const set = readUvLock(text, {
      ...DEFAULT_DEPENDENCY_POLICY,
      registries: { ...DEFAULT_DEPENDENCY_POLICY.registries, PyPI: [`${index.url}/simple`] },
      pypiFileHosts: [`${other.url}/packages/`],
    });
    if (!set.ok) throw new Error(JSON.stringify(set.error));
    const before = index.requests.length;
    const r = await installPythonDependencies(
      { lockfile: "uv.lock", lockText: text, packages: set.value.packages },
      LIMITS,
      context,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ rule: "registry-refused", package: "tinyadd==1.0.0" });
    expect(r.error.detail).toContain(other.url);
    expect(other.requests).toEqual([]);
    expect(index.requests.length).toBe(before);
  }, 120_000);

  it("stops a wheel bomb at the byte cap", async () => {
    const r = await installPythonDependencies(request([bomb]), LIMITS, context);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ rule: "install-too-large", package: "wheelbomb==1.0.0" });
  }, 120_000);

  it("stops a wheel that unpacks past the cap on the capped folder, and caches nothing", async () => {
    expect(zeros.bytes.byteLength).toBeLessThan(LIMITS.maxInstalledBytes);
    const req = request([zeros]);
    const r = await installPythonDependencies(req, LIMITS, context);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.rule).toBe("install-too-large");
    expect(r.error.detail).toMatch(/filled its 16777216-byte folder/);
    expect(listInstalledPythonTrees(context.cacheDir)).not.toContain(
      computePythonInstallKey(req, readPipVersion(context.pypi!.pipDir)!),
    );
  }, 120_000);

  it("refuses Python installs when no index is configured, naming the variable", async () => {
    const r = await installPythonDependencies(request([tinyadd]), LIMITS, {
      ...context,
      pypi: { ...context.pypi!, index: null },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.rule).toBe("ecosystem-not-installed");
    expect(r.error.detail).toContain("RUNNER_PYPI_INDEX");
  });
});

/** A solution importing tinyadd, answering wrong if it can write into the installed tree. */
const SOLUTION = [
  "import os",
  "import tinyadd",
  "",
  "",
  "def _writable():",
  "    try:",
  '        with open(os.path.join(os.path.dirname(tinyadd.__file__), "probe"), "w"):',
  "            return True",
  "    except OSError:",
  "        return False",
  "",
  "",
  "WRITABLE = _writable()",
  "",
  "",
  "def add(a, b):",
  "    return -1 if WRITABLE else tinyadd.add(a, b)",
  "",
  "",
  "def mul(a, b):",
  "    return a * b",
  "",
].join("\n");

function writeChallenge(name: string, lockText: string | null): string {
  const dir = path.join(work, name);
  cpSync(path.join(FIXTURES, "budget-python"), dir, { recursive: true });
  const manifestFile = path.join(dir, "challenge.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>;
  manifest.id = name;
  manifest.dependencies = {
    lockfile: lockText === null ? null : "requirements.lock",
    submissions: { allowed: true, maxInstalledBytes: 16 * MIB, maxInstallMs: 60_000 },
  };
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  if (lockText !== null) {
    writeFileSync(path.join(dir, "requirements.lock"), lockText);
    writeFileSync(path.join(dir, "reference/solution.py"), SOLUTION);
    // The trusted tests use the bundle's package too: they fail without its mounted tree.
    const tests = path.join(dir, "tests/test_first.py");
    const original = readFileSync(tests, "utf8");
    const using = original.replace(
      "def test_adds():\n    assert add(1, 2) == 3",
      "def test_adds():\n    import tinyadd\n\n    assert add(1, 2) == tinyadd.add(1, 2) == 3",
    );
    if (using === original) throw new Error("budget-python's test_adds changed: update this test");
    writeFileSync(tests, using);
  }
  return dir;
}

async function run(challenge: PreparedChallenge, name: string, requirements: string | null) {
  const dir = path.join(work, "submissions", name);
  cpSync(path.join(FIXTURES, "budget-python/reference"), dir, { recursive: true });
  writeFileSync(path.join(dir, "solution.py"), SOLUTION);
  if (requirements !== null) writeFileSync(path.join(dir, "requirements.txt"), requirements);
  const submission = await packDir(dir);
  return runJob({
    runId: `pip-${name}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
  });
}

describe("Python dependencies in runs", () => {
  it("installs a submission's hashed requirements.txt; its subject imports it, read-only", async () => {
    const challenge = await prepareDir(environment, writeChallenge("py-deps-allowed", null));
    const r = await run(challenge, "own-py-deps", request([tinyadd]).lockText);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.staticTests.map((t) => t.status)).toEqual(Array(8).fill("passed"));
    expect(r.value.dependencies).toMatchObject({
      source: "submission",
      ecosystem: "PyPI",
      lockfile: "requirements.txt",
      direct: [{ name: "tinyadd", version: "1.0.0" }],
    });
    const tree = request([tinyadd]);
    const installed = await installPythonDependencies(tree, LIMITS, context);
    if (!installed.ok) throw new Error(JSON.stringify(installed.error));
    expect(installed.value.cached).toBe(true);
    expect(existsSync(path.join(installed.value.layer, "tinyadd/probe"))).toBe(false);
  }, 180_000);

  it("installs a Python bundle's lock and mounts it for a submission that brings none", async () => {
    const challenge = await prepareDir(
      environment,
      writeChallenge("py-deps-bundle", request([tinyadd]).lockText),
    );
    expect(challenge.depsLayer).toMatch(/\/deps\/pypi\/[0-9a-f]{64}\/site$/);
    const r = await run(challenge, "uses-bundle-py-deps", null);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.staticTests.map((t) => t.status)).toEqual(Array(8).fill("passed"));
    expect(r.value.dependencies).toMatchObject({ source: "challenge", ecosystem: "PyPI" });
  }, 180_000);
});
