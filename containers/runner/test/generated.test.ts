import { cpSync, mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GeneratedRunResultSchema, RunReportSchema, type GeneratedSuite } from "@bouts/contracts";
import { buildCandidates, jsTestName, weightHalves } from "@bouts/adversarial";
import { createRunnerApp } from "../src/app.ts";
import {
  computeSha256,
  packChallengeDir,
  packDir,
  type PreparedChallenge,
} from "../src/challenge/bundle.ts";
import { runJob, type RunnerEnvironment } from "../src/job.ts";
import { CHALLENGES, createTestEnvironment, form, prepareDir } from "./helpers.ts";

const DEEP_MERGE = path.join(CHALLENGES, "deep-merge");

let environment: RunnerEnvironment;
let challenge: PreparedChallenge;

beforeAll(async () => {
  environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
  challenge = await prepareDir(environment, DEEP_MERGE);
}, 120_000);

async function run(submission: Buffer, generation: "select" | "all-candidates" = "select") {
  const r = await runJob({
    generation,
    runId: `gen-${Math.random().toString(16).slice(2)}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return RunReportSchema.parse(r.value);
}

describe("generated adversarial tests in a run", () => {
  it("runs the deterministic generator's tests beside the pre-built ones and reports the 40/60 make-up", async () => {
    const report = await run(await packDir(path.join(DEEP_MERGE, "submissions", "complete")));
    const generated = report.adversarialTests.filter((t) => t.origin === "generated");
    expect(generated.length).toBeGreaterThan(3);
    expect(generated.every((t) => t.status === "passed")).toBe(true);
    expect(generated.every((t) => t.generated?.kind === "deterministic")).toBe(true);
    const g = report.generation!;
    expect(g.weightHalves.prebuilt).toBe(15); // 2 critical + medium + low
    expect(g.weightHalves.budget).toBe(23);
    expect(g.weightHalves.generated).toBe(
      generated.reduce((s, t) => s + weightHalves(t.severity), 0),
    );
    expect(g.generators[0]).toMatchObject({ status: "ok", kind: "deterministic" });
  }, 300_000);

  it("draws tests aimed at what reading the insecure merge found", async () => {
    const report = await run(await packDir(path.join(DEEP_MERGE, "submissions", "insecure")));
    const injection = report.adversarialTests.filter(
      (t) => t.origin === "generated" && t.generated?.technique === "injection",
    );
    expect(injection.length).toBeGreaterThan(0);
    expect(injection[0]!.generated!.rationale).toMatch(/^targeted: computed-key writes/);
  }, 300_000);

  it("has oracles that catch prototype pollution (every candidate, as challenge QA runs them)", async () => {
    const report = await run(
      await packDir(path.join(DEEP_MERGE, "submissions", "insecure")),
      "all-candidates",
    );
    const byId = new Map(report.adversarialTests.map((t) => [t.id, t.status]));
    expect(byId.get("gen-inj-deep-merge-sources-a-proto-key")).toBe("failed");
    expect(byId.get("gen-inj-deep-merge-sources-a-nested-proto-key")).toBe("failed");
    expect(byId.get("gen-wt-deep-merge-sources-null")).toBe("passed");
  }, 300_000);

  it("ignores generated test files a submission plants", async () => {
    const pool = buildCandidates(challenge.manifest.interface!, "node22");
    if (!pool.ok) throw new Error(pool.detail);
    const dir = mkdtempSync(path.join(tmpdir(), "bouts-planted-"));
    cpSync(path.join(DEEP_MERGE, "submissions", "complete"), dir, { recursive: true });
    mkdirSync(path.join(dir, "tests", "generated"), { recursive: true });
    // Same names as every real candidate, all failing: if these ran, the complete merge would fail.
    writeFileSync(
      path.join(dir, "tests", "generated", "deterministic.test.mjs"),
      [
        'import { test } from "node:test";',
        `for (const name of ${JSON.stringify(pool.value.map(jsTestName))}) test(name, () => { throw new Error("planted"); });`,
      ].join("\n"),
    );
    const report = await run(await packDir(dir));
    const generated = report.adversarialTests.filter((t) => t.origin === "generated");
    expect(generated.length).toBeGreaterThan(0);
    expect(generated.every((t) => t.status === "passed")).toBe(true);
  }, 300_000);
});

describe("POST /v1/runs/generated", () => {
  const suite: GeneratedSuite = {
    generator: { name: "model:test", kind: "llm", model: "test-model" },
    files: [
      {
        path: "generated/model-1.test.mjs",
        content: [
          'import { test } from "node:test";',
          'import assert from "node:assert/strict";',
          'import { pollution } from "bouts:subject";',
          'const load = (p) => import(new URL("../../" + p, import.meta.url).href);',
          'test("gen-llm-1-proto: keeps __proto__ out", async () => {',
          '  const { deepMerge } = await load("merge.mjs");',
          '  deepMerge(JSON.parse(\'{"__proto__":{"polluted":1}}\'));',
          // Object.prototype lives in the subject: only its probe can tell.
          "  assert.deepEqual(pollution(), []);",
          "});",
        ].join("\n"),
      },
      {
        path: "generated/model-2.test.mjs",
        content: [
          'import { test } from "node:test";',
          'import assert from "node:assert/strict";',
          'test("gen-llm-2-wrong: expects arrays to concatenate", async () => {',
          "  assert.fail('a wrong expectation: the reference replaces arrays');",
          "});",
        ].join("\n"),
      },
    ],
    tests: [
      {
        id: "gen-llm-1-proto",
        file: "generated/model-1.test.mjs",
        name: "gen-llm-1-proto: keeps __proto__ out",
        severity: "critical",
        technique: "injection",
        target: "deepMerge",
        rationale: "model:test: for…in copies every key",
      },
      {
        id: "gen-llm-2-wrong",
        file: "generated/model-2.test.mjs",
        name: "gen-llm-2-wrong: expects arrays to concatenate",
        severity: "low",
        technique: "code-reading",
        target: "deepMerge",
        rationale: "model:test: a mistaken reading",
      },
    ],
  };

  it("drops tests the reference fails and runs the rest against the submission", async () => {
    const app = createRunnerApp(environment, null);
    const res = await app.request("/v1/runs/generated", {
      method: "POST",
      body: form({
        job: JSON.stringify({ runId: "gen-svc-1", suite }),
        submission: await packDir(path.join(DEEP_MERGE, "submissions", "insecure")),
        bundle: await packChallengeDir(DEEP_MERGE),
      }),
    });
    expect(res.status).toBe(200);
    const body = GeneratedRunResultSchema.parse(await res.json());
    expect(body.dropped.map((d) => d.id)).toEqual(["gen-llm-2-wrong"]);
    expect(body.dropped[0]!.reason).toMatch(/fails on the reference/);
    expect(body.tests).toHaveLength(1);
    expect(body.tests[0]).toMatchObject({
      id: "gen-llm-1-proto",
      origin: "generated",
      status: "failed",
    });
    expect(body.generator).toMatchObject({ kind: "llm", candidates: 2, selected: 1 });
  }, 300_000);

  it("answers an invalid suite with 400", async () => {
    const app = createRunnerApp(environment, null);
    const res = await app.request("/v1/runs/generated", {
      method: "POST",
      body: form({
        job: JSON.stringify({
          suite: { ...suite, files: [{ path: "../escape.mjs", content: "" }] },
        }),
        submission: await packDir(path.join(DEEP_MERGE, "submissions", "insecure")),
        bundle: await packChallengeDir(DEEP_MERGE),
      }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/problem\+json/);
  }, 60_000);
});
