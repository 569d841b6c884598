/**
 * Dependencies in whole runs (src/challenge/bundle.ts, src/deps/submission.ts): a challenge's
 * lockfile is installed when its bundle is prepared and mounted for every run; a submission's
 * own lockfile, where the challenge allows it, is installed for its subject only; and a
 * submission that declares dependencies where none are allowed, or whose lock breaks a rule
 * (a tarball outside the registry, a typosquat-shaped name), is refused before any of its code
 * runs, naming the rule and the package. Packages come from a local fixture registry; every
 * submission runs only in the sandbox.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  buildNpmProject,
  buildPackage,
  startLocalNpmRegistry,
  type BuiltPackage,
  type LocalNpmRegistry,
} from "@bouts/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packDir, type PreparedChallenge } from "../src/challenge/bundle.ts";
import { runJob, type RunnerEnvironment } from "../src/job.ts";
import { computeSha256 } from "../src/challenge/bundle.ts";
import { createTestEnvironment, FIXTURES, prepareDir } from "./helpers.ts";

const leftPad = buildPackage({
  name: "left-pad",
  version: "1.3.0",
  files: {
    "index.js": "module.exports = (s, n, c = ' ') => String(s).padStart(n, c);\n",
  },
});
const greet = buildPackage({
  name: "@fixture/greet",
  version: "2.0.1",
  files: { "index.js": "module.exports = (a, b) => a + b;\n" },
});
/** A real name at a version the Node.js security WG's advisories list (prototype pollution). */
const oldLodash = buildPackage({
  name: "lodash",
  version: "4.17.4",
  files: { "index.js": "module.exports = { add: (a, b) => a + b };\n" },
});
/** One edit from express: refused by the typosquat rule, never installed. */
const lookalike = buildPackage({ name: "expresss", version: "4.0.0", files: { "i.js": "" } });

let registry: LocalNpmRegistry;
let environment: RunnerEnvironment;
let allowing: PreparedChallenge;
let forbidding: PreparedChallenge;
let work: string;

/**
 * The exploit-node arithmetic challenge, its harness depending on left-pad, and its submissions
 * allowed (or not) their own dependencies.
 */
function writeChallenge(name: string, allowed: boolean): string {
  const dir = path.join(work, name);
  cpSync(path.join(FIXTURES, "exploit-node"), dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(dir, "challenge.json"), "utf8")) as Record<
    string,
    unknown
  >;
  manifest.id = name;
  manifest.dependencies = {
    lockfile: "harness/package-lock.json",
    submissions: { allowed, maxInstalledBytes: 16 * 1024 * 1024, maxInstallMs: 60_000 },
  };
  writeFileSync(path.join(dir, "challenge.json"), JSON.stringify(manifest, null, 2));
  const project = buildNpmProject({ "left-pad": "1.3.0" }, [leftPad]);
  writeFileSync(path.join(dir, "harness/package.json"), project.manifest);
  writeFileSync(path.join(dir, "harness/package-lock.json"), project.lock);
  // The reference needs the challenge's left-pad: it cannot pass without the mounted tree.
  writeFileSync(
    path.join(dir, "reference/solution.mjs"),
    [
      'import leftPad from "left-pad";',
      'export const add = (a, b) => Number(leftPad(String(a + b), 1, "0"));',
      "export const mul = (a, b) => a * b;",
      "",
    ].join("\n"),
  );
  return dir;
}

/** A submission folder: its solution and, when given, its own package.json and lock. */
function writeSubmission(
  name: string,
  solution: string,
  deps?: { direct: Record<string, string>; packages: BuiltPackage[]; registry?: string },
): string {
  const dir = path.join(work, "submissions", name);
  cpSync(path.join(FIXTURES, "exploit-node/reference"), dir, { recursive: true });
  writeFileSync(path.join(dir, "solution.mjs"), solution);
  writeFileSync(path.join(dir, "NOTES.md"), "notes\n");
  if (deps) {
    const project = buildNpmProject(deps.direct, deps.packages, deps.registry);
    writeFileSync(path.join(dir, "package.json"), project.manifest);
    writeFileSync(path.join(dir, "package-lock.json"), project.lock);
  }
  return dir;
}

async function run(challenge: PreparedChallenge, dir: string) {
  const submission = await packDir(dir);
  return runJob({
    runId: `deps-${path.basename(dir)}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
  });
}

const statusOf = (report: { staticTests: { id: string; status: string }[] }) =>
  Object.fromEntries(report.staticTests.map((t) => [t.id, t.status]));

beforeAll(async () => {
  registry = await startLocalNpmRegistry([leftPad, greet, lookalike, oldLodash]);
  environment = await createTestEnvironment({
    RUNNER_SELF_TEST: "off",
    RUNNER_NPM_REGISTRY: registry.url,
  });
  work = mkdtempSync(path.join(tmpdir(), "deps-job-"));
  allowing = await prepareDir(environment, writeChallenge("deps-allowed", true));
  forbidding = await prepareDir(environment, writeChallenge("deps-forbidden", false));
}, 180_000);

afterAll(async () => {
  await registry?.close();
});

describe("a bundle's own lock", () => {
  it("refuses a bundle whose lock pins a typosquat-shaped name, naming it, before installing", async () => {
    const dir = writeChallenge("deps-typosquat", false);
    const project = buildNpmProject({ expresss: "4.0.0" }, [lookalike]);
    writeFileSync(path.join(dir, "harness/package.json"), project.manifest);
    writeFileSync(path.join(dir, "harness/package-lock.json"), project.lock);
    const before = registry.requests.length;
    await expect(prepareDir(environment, dir)).rejects.toThrow(
      /"reason":"dependencies","rule":"lockfile-refused","package":"expresss"/,
    );
    expect(registry.requests.length).toBe(before);
  }, 120_000);

  it("refuses a Python bundle's lockfile by name where no PyPI index is configured", async () => {
    const dir = path.join(work, "deps-python");
    cpSync(path.join(FIXTURES, "budget-python"), dir, { recursive: true });
    const manifestFile = path.join(dir, "challenge.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>;
    manifest.dependencies = { lockfile: "requirements.lock" };
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    writeFileSync(
      path.join(dir, "requirements.lock"),
      `tinylib==1.0 --hash=sha256:${"a".repeat(64)}\n`,
    );
    await expect(prepareDir(environment, dir)).rejects.toThrow(
      /"rule":"ecosystem-not-installed".*RUNNER_PYPI_INDEX/,
    );
  }, 120_000);
});

describe("dependencies in runs", () => {
  it("mounts the challenge's locked tree for a submission that brings none", async () => {
    expect(allowing.depsLayer).toMatch(/\/deps\/npm\/[0-9a-f]{64}\/node_modules$/);
    const dir = writeSubmission(
      "uses-challenge-deps",
      'import leftPad from "left-pad";\nexport const add = (a, b) => Number(leftPad(String(a + b), 2, "0"));\nexport const mul = (a, b) => a * b;\n',
    );
    const r = await run(allowing, dir);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(statusOf(r.value)).toEqual({ adds: "passed", multiplies: "passed" });
    // No dependencies of its own: none vulnerable, measured against the shipped snapshot.
    expect(r.value.scan.findings.filter((f) => f.tool === "deps")).toEqual([]);
    expect(r.value.scan.advisories).toMatchObject({ source: "snapshot", packages: 0 });
    expect(r.value.scan.notMeasured.map((n) => n.check)).not.toContain("dependencies");
    // The judges are told what the code ran with: the challenge's packages.
    expect(r.value.dependencies).toEqual({
      source: "challenge",
      ecosystem: "npm",
      lockfile: "package-lock.json",
      direct: [{ name: "left-pad", version: "1.3.0" }],
      total: 1,
    });
  }, 120_000);

  it("reports each known advisory of a submission's own dependency, from the snapshot", async () => {
    const dir = writeSubmission(
      "old-lodash",
      'import _ from "lodash";\nexport const add = (a, b) => _.add(a, b);\nexport const mul = (a, b) => a * b;\n',
      { direct: { lodash: "4.17.4" }, packages: [oldLodash] },
    );
    const r = await run(allowing, dir);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(statusOf(r.value)).toEqual({ adds: "passed", multiplies: "passed" });
    const deps = r.value.scan.findings.filter((f) => f.tool === "deps");
    expect(deps.length).toBeGreaterThanOrEqual(2);
    for (const f of deps) {
      expect(f.file).toBe("package-lock.json");
      expect(f.message).toContain("lodash@4.17.4");
      expect(f.rule).toMatch(/^(NSWG-ECO-\d+|GHSA-|CVE-)/);
    }
    expect(r.value.scan.advisories).toMatchObject({ source: "snapshot", packages: 1 });
  }, 120_000);

  it("installs a submission's own lock where allowed, for its subject", async () => {
    const dir = writeSubmission(
      "own-deps",
      'import add from "@fixture/greet";\nexport { add };\nexport const mul = (a, b) => a * b;\n',
      { direct: { "@fixture/greet": "2.0.1" }, packages: [greet] },
    );
    const r = await run(allowing, dir);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(statusOf(r.value)).toEqual({ adds: "passed", multiplies: "passed" });
    expect(registry.requests).toContain("/@fixture/greet/-/greet-2.0.1.tgz");
    expect(r.value.dependencies).toMatchObject({
      source: "submission",
      direct: [{ name: "@fixture/greet", version: "2.0.1" }],
    });
  }, 120_000);

  it("refuses a submission's dependencies where the challenge allows none, before running it", async () => {
    const before = registry.requests.length;
    const dir = writeSubmission(
      "forbidden-deps",
      'import add from "@fixture/greet";\nexport { add };\nexport const mul = (a, b) => a * b;\n',
      { direct: { "@fixture/greet": "2.0.1" }, packages: [greet] },
    );
    const r = await run(forbidding, dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ reason: "dependencies", rule: "not-allowed" });
    expect(registry.requests.length).toBe(before);
  }, 120_000);

  it("refuses a lock with a tarball outside the registry, naming the package", async () => {
    const dir = writeSubmission("outside-registry", "export const add = (a, b) => a + b;\n", {
      direct: { "@fixture/greet": "2.0.1" },
      packages: [greet],
      registry: "https://evil.example",
    });
    const r = await run(allowing, dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ reason: "dependencies", rule: "lockfile-refused" });
    if (r.error.reason !== "dependencies") return;
    expect(r.error.detail).toContain("@fixture/greet");
  }, 120_000);

  it("refuses a typosquat-shaped name, never installing it", async () => {
    const before = registry.requests.length;
    const dir = writeSubmission("typosquat", "export const add = (a, b) => a + b;\n", {
      direct: { expresss: "4.0.0" },
      packages: [lookalike],
    });
    const r = await run(allowing, dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ reason: "dependencies", rule: "lockfile-refused" });
    if (r.error.reason !== "dependencies") return;
    expect(r.error.detail).toMatch(/expresss/);
    expect(registry.requests.length).toBe(before);
  }, 120_000);
});
