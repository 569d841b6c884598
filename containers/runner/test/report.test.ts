/**
 * The pure parts of a run around the sandbox: the RunReport builder, the generator selection
 * and the check of a generated suite. No sandbox, no files.
 */
import { describe, expect, it } from "vitest";
import {
  ChallengeManifestSchema,
  RunReportSchema,
  type GeneratedSuite,
  type ScanReport,
} from "@bouts/contracts";
import { validateGeneratedSuite } from "../src/generated-run.ts";
import type { TestJudgement } from "../src/run/analyze.ts";
import { selectGeneratedTests } from "../src/run/generator-selection.ts";
import { buildRunReport, type PlannedTest, type RunReportInput } from "../src/run/report.ts";

const manifest = ChallengeManifestSchema.parse({
  schemaVersion: 1,
  id: "todo-api",
  title: "Todo API",
  runtime: "node22",
  testFramework: "node:test",
  staticTests: [
    { id: "s1", file: "static.test.mjs", name: "creates", category: "functionality" },
    { id: "s2", file: "static.test.mjs", name: "lists", category: "edge" },
  ],
  adversarialTests: [{ id: "a1", file: "adv.test.mjs", name: "sqli", severity: "critical" }],
});

const tests: PlannedTest[] = [
  ...manifest.staticTests.map((t) => ({ ...t, kind: "static" as const })),
  ...manifest.adversarialTests.map((t) => ({ ...t, kind: "adversarial" as const })),
];

const scan: ScanReport = {
  status: "unavailable",
  findings: [],
  tools: [],
  skipped: [],
  notMeasured: [{ check: "all", reason: "not scanned" }],
  durationMs: 0,
};

const judged = (status: TestJudgement["status"], over: Partial<TestJudgement> = {}) => ({
  status,
  durationMs: 12.34567,
  message: status === "passed" ? "" : "expected 201",
  crashes: [],
  warnings: [],
  integrity: [],
  exploits: [],
  ...over,
});

function buildInput(over: Partial<RunReportInput> = {}): RunReportInput {
  return {
    runId: "r1",
    manifest,
    bundleSha256: "a".repeat(64),
    submissionSha256: "b".repeat(64),
    filesSha256: "c".repeat(64),
    files: [{ path: "merge.mjs", sha256: "d".repeat(64) }],
    runtimeVersion: "v22.23.3",
    limits: {
      testTimeoutMs: 10_000,
      memoryMb: 512,
      cpuSeconds: 30,
      maxProcesses: 64,
      maxOpenFiles: 256,
      maxFileSizeMb: 16,
      maxOutputBytes: 262_144,
      runWallMs: 60_000,
    },
    budgetSource: "derived",
    scanDeadlineMs: 30_000,
    tests,
    judgements: new Map([
      ["s1", judged("passed")],
      ["s2", judged("failed")],
      ["a1", judged("passed")],
    ]),
    infrastructure: null,
    subject: { crashes: [], warnings: [], integrity: [], exploits: [] },
    workspace: { integrity: [], deliverables: [], sources: [], notes: [] },
    scan,
    generation: {
      target: { prebuilt: 40, generated: 60 },
      weightHalves: { prebuilt: 6, generated: 0, budget: 9 },
      generators: [],
    },
    failFast: { tripped: null, failedAfterTrip: 0 },
    timings: {
      startedAt: "2026-01-01T00:00:00.000Z",
      unpackMs: 3.4,
      scanMs: 0,
      testsMs: 1200.6,
      totalMs: 1300.2,
      spentMs: 1250.7,
    },
    ...over,
  };
}

describe("run report", () => {
  it("lists every planned test once, in order, and satisfies the contract", () => {
    const report = RunReportSchema.parse(buildRunReport(buildInput()));
    expect(report.staticTests.map((t) => [t.id, t.status])).toEqual([
      ["s1", "passed"],
      ["s2", "failed"],
    ]);
    expect(report.adversarialTests).toMatchObject([
      { id: "a1", origin: "prebuilt", severity: "critical", durationMs: 12.346 },
    ]);
    expect(report.timings).toMatchObject({ unpackMs: 3, testsMs: 1201, totalMs: 1300 });
    expect(report.budget).toMatchObject({ limitMs: 60_000, spentMs: 1251, exhausted: false });
    expect(report.stability.verdict).toBe("clean");
  });

  it("marks tests without a judgement budget-exhausted and cites the budget", () => {
    const report = buildRunReport(buildInput({ judgements: new Map([["s1", judged("passed")]]) }));
    expect(report.staticTests[1]!.status).toBe("budget-exhausted");
    expect(report.adversarialTests[0]!.status).toBe("budget-exhausted");
    expect(report.budget?.exhausted).toBe(true);
    expect(report.stability.verdict).toBe("crashed");
    expect(report.stability.evidence[0]).toMatch(/^run budget of 60000 ms \(derived\) exhausted/);
  });

  it("names the test each stability line came from, index for index with the evidence", () => {
    const report = buildRunReport(
      buildInput({
        judgements: new Map([
          ["s1", judged("passed", { warnings: ["s1: DeprecationWarning: old"] })],
          ["s2", judged("failed", { crashes: ["s2: uncaught exception: boom"] })],
          ["a1", judged("passed")],
        ]),
      }),
    );
    expect(report.stability.verdict).toBe("crashed");
    expect(report.stability.evidence).toEqual([
      "s2: uncaught exception: boom",
      "s1: DeprecationWarning: old",
    ]);
    expect(report.stability.sources).toEqual([
      { test: "s2", kind: "crash" },
      { test: "s1", kind: "warning" },
    ]);
  });

  it("reports a run the sandbox could not start as not-run with clean stability", () => {
    const infrastructure = { reason: "sandbox-unavailable" as const, message: "no bwrap" };
    const report = buildRunReport(buildInput({ judgements: new Map(), infrastructure }));
    expect(report.staticTests.every((t) => t.status === "not-run")).toBe(true);
    expect(report.stability).toEqual({ verdict: "clean", evidence: [], sources: [] });
    expect(report.budget).toMatchObject({ exhausted: false, failFast: null });
    expect(report.infrastructure).toEqual(infrastructure);
  });

  it("aggregates repeated observations by trigger", () => {
    const cite = (citation: string) => ({ trigger: "test-file-modified" as const, citation });
    const report = buildRunReport(
      buildInput({
        workspace: {
          integrity: [cite("tests/a.test.mjs"), cite("tests/a.test.mjs"), cite("tests/b.mjs")],
          deliverables: [],
          sources: [],
          notes: [],
        },
      }),
    );
    expect(report.integrity).toEqual([
      { trigger: "test-file-modified", citation: "tests/a.test.mjs; tests/b.mjs", count: 3 },
    ]);
  });
});

const suite: GeneratedSuite = {
  generator: { name: "model-x", kind: "llm", model: "m-1" },
  files: [{ path: "generated/merge.test.mjs", content: "" }],
  tests: [
    {
      id: "gen-merge.proto",
      file: "generated/merge.test.mjs",
      name: "refuses __proto__",
      severity: "high",
      technique: "injection",
      target: "merge",
      rationale: "prototype pollution",
    },
  ],
};

describe("generator selection", () => {
  it("runs a supplied suite as it is and weighs its tests", async () => {
    const s = await selectGeneratedTests(
      { suite, onlyGenerated: true },
      {
        manifest,
        sources: [],
        seed: "b".repeat(64),
        keyed: true,
      },
    );
    expect(s.tests).toEqual(suite.tests);
    expect(s.report.weightHalves).toMatchObject({ prebuilt: 6, generated: 4 });
    expect(s.report.generators).toMatchObject([{ name: "model-x", status: "ok", selected: 1 }]);
  });
  it("selects nothing and reports no generator for 'none'", async () => {
    const s = await selectGeneratedTests("none", { manifest, sources: [], seed: "", keyed: false });
    expect(s).toMatchObject({ suite: null, tests: [], report: { generators: [] } });
  });
  it("reports the deterministic generator as not-declared without an interface", async () => {
    const s = await selectGeneratedTests("select", {
      manifest,
      sources: [],
      seed: "",
      keyed: false,
    });
    expect(s.tests).toEqual([]);
    expect(s.report.generators).toMatchObject([{ kind: "deterministic", status: "not-declared" }]);
  });
});

describe("generated suite check", () => {
  it("accepts a suite of the challenge's runtime", () => {
    expect(validateGeneratedSuite(suite, "node22").ok).toBe(true);
  });
  it("refuses an empty suite", () => {
    expect(validateGeneratedSuite({ ...suite, tests: [] }, "node22")).toEqual({
      ok: false,
      error: { reason: "invalid-job", issues: ["suite.tests: the suite is empty"] },
    });
  });
  it("refuses a file of another runtime", () => {
    const r = validateGeneratedSuite(suite, "python3.11");
    expect(!r.ok && r.error).toEqual({
      reason: "invalid-job",
      issues: ["suite.files: generated/merge.test.mjs is not a python3.11 test file"],
    });
  });
});
