/**
 * Same code, same tests (issue 34, family 4; docs/design.md §31), through the runner's own job
 * API: the same files packed three ways (tar.gz from the folder, tar.gz in a wrapper folder in
 * reverse order, stored zip) draw the same generated tests and get the same verdicts; comments
 * and a nonce change nothing; the draw key is actually used. Invariant: submissions only ever
 * run through runJob, in the sandbox.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunReportSchema, type RunReport } from "@bouts/contracts";
import {
  buildCandidates,
  createDeterministicGenerator,
  deriveBundleDrawKey,
  deriveDrawSeed,
} from "@bouts/adversarial";
import { computeSha256, packDir, type PreparedChallenge } from "../src/challenge/bundle.ts";
import { runJob, type RunnerEnvironment } from "../src/job.ts";
import { buildTarGz, buildZip } from "./archive-builders.ts";
import { CHALLENGES, createTestEnvironment, prepareDir } from "./helpers.ts";

const DEEP_MERGE = path.join(CHALLENGES, "deep-merge");
const PARTIAL = path.join(DEEP_MERGE, "submissions", "partial");

let environment: RunnerEnvironment;
let challenge: PreparedChallenge;
let drawKey: string;

beforeAll(async () => {
  environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
  challenge = await prepareDir(environment, DEEP_MERGE);
  drawKey = await deriveBundleDrawKey("test-generation-secret-".repeat(2), challenge.sha256);
}, 120_000);

async function run(submission: Buffer, key: string): Promise<RunReport> {
  const r = await runJob({
    runId: `draw-${Math.random().toString(16).slice(2)}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    drawKey: key,
    requestedLimits: {},
    environment,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return RunReportSchema.parse(r.value);
}

const generatedIds = (r: RunReport) =>
  r.adversarialTests
    .filter((t) => t.origin === "generated")
    .map((t) => t.id)
    .sort();

/** Every test's verdict, by id: what the score is computed from. */
const verdicts = (r: RunReport) =>
  Object.fromEntries(
    [...r.staticTests, ...r.adversarialTests].map((t) => [t.id, t.status] as const).sort(),
  );

/** A comment naming what every code hint looks for. */
const STEER =
  "/* SELECT ${x}; o[k] = v; let state = {}; f() calls f; no limit; typeof; depth; seen */\n";

/** The partial solution's files, each as bytes. */
function partialFiles(): { name: string; data: Buffer }[] {
  return readdirSync(PARTIAL).map((name) => ({
    name,
    data: readFileSync(path.join(PARTIAL, name)),
  }));
}

describe("the same code draws the same generated tests", () => {
  let first: RunReport;

  it("gets identical tests and verdicts from three packings of the same files", async () => {
    const files = partialFiles();
    const packings = [
      await packDir(PARTIAL),
      buildTarGz(files.toReversed().map((f) => ({ name: `solution/${f.name}`, data: f.data }))),
      buildZip(files.map((f) => ({ name: f.name, data: f.data, method: 0 }))),
    ];
    expect(new Set(packings.map((p) => computeSha256(p))).size).toBe(3);
    const reports = [];
    for (const p of packings) reports.push(await run(p, drawKey));
    first = reports[0]!;
    expect(generatedIds(first).length).toBeGreaterThan(3);
    for (const r of reports.slice(1)) {
      expect(generatedIds(r)).toEqual(generatedIds(first));
      expect(verdicts(r)).toEqual(verdicts(first));
      expect(r.generation?.weightHalves).toEqual(first.generation?.weightHalves);
    }
    // "The code" is one value for all three; the archive's sha256 stays each artifact's own.
    expect(first.filesSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(reports.map((r) => r.filesSha256)).size).toBe(1);
    // Each file the run used, by its path inside the unwrapped tree, with its own sha256: what a
    // trace's file digests are checked against (docs/design.md §40).
    const expected = files
      .map((f) => ({ path: f.name, sha256: computeSha256(f.data) }))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    for (const r of reports) expect(r.files).toEqual(expected);
    expect(first.generation!.generators[0]!.detail).toMatch(/^drawn with the platform's key/);
  }, 600_000);

  it("draws the same tests when a comment and a nonce are added to the code", async () => {
    const files = partialFiles().map((f) =>
      f.name === "merge.mjs"
        ? {
            name: f.name,
            data: Buffer.concat([
              Buffer.from("/* typeof sources is checked; hasOwnProperty; depth limit */\n"),
              f.data,
              Buffer.from(
                '\nexport const NONCE = "9f86d081884c7d65";\n// nonce 2c26b46b68ffc68f\n',
              ),
            ]),
          }
        : f,
    );
    const r = await run(buildTarGz(files), drawKey);
    expect(generatedIds(r)).toEqual(generatedIds(first));
    expect(r.filesSha256).not.toBe(first.filesSha256);
  }, 600_000);

  it("keeps full marks for an honest solution, oddly packed and commented", async () => {
    const complete = path.join(DEEP_MERGE, "submissions", "complete");
    const files = readdirSync(complete).map((name) => {
      const data = readFileSync(path.join(complete, name));
      // Comments that name every hint's pattern: they must neither add nor remove a test.
      return name.endsWith(".mjs")
        ? { name: `deep/${name}`, data: Buffer.concat([Buffer.from(STEER), data]) }
        : { name: `deep/${name}`, data };
    });
    const r = await run(buildZip(files.toReversed()), drawKey);
    const generated = r.adversarialTests.filter((t) => t.origin === "generated");
    expect(generated.length).toBeGreaterThan(3);
    expect(generated.filter((t) => t.status !== "passed")).toEqual([]);
    expect(r.staticTests.filter((t) => t.status !== "passed")).toEqual([]);
  }, 600_000);

  it("draws with the key it is given: another key, another draw", async () => {
    // A key whose seed draws another set for this code (found offline, from the public pool).
    const iface = challenge.manifest.interface!;
    const pool = buildCandidates(iface, "node22");
    if (!pool.ok) throw new Error(pool.detail);
    const sources = first.sources;
    const draw = async (key: string) => {
      const g = await createDeterministicGenerator().generate({
        challengeId: challenge.manifest.id,
        runtime: "node22",
        interface: iface,
        sources,
        seed: await deriveDrawSeed(key, challenge.sha256),
        budget: {
          weightHalves: first.generation!.weightHalves.budget,
          maxTests: challenge.manifest.generation.maxTests,
        },
        exclude: challenge.manifest.generation.exclude,
      });
      if (!g.ok) throw new Error(g.error.detail);
      return g.value.suite.tests.map((t) => t.id).sort();
    };
    // The offline draw with the run's own key is what the runner drew: the key is what decides.
    expect(await draw(drawKey)).toEqual(generatedIds(first));
    let other: string | null = null;
    for (let i = 0; i < 16 && other === null; i++) {
      const k = await deriveBundleDrawKey(`another-secret-${i}-`.repeat(3), challenge.sha256);
      if (JSON.stringify(await draw(k)) !== JSON.stringify(generatedIds(first))) other = k;
    }
    expect(other).not.toBeNull();
    const r = await run(await packDir(PARTIAL), other!);
    expect(generatedIds(r)).toEqual(await draw(other!));
    expect(generatedIds(r)).not.toEqual(generatedIds(first));
  }, 600_000);
});
