import { describe, expect, expectTypeOf, it } from "vitest";
import { RunReportSchema, type RunReport } from "../src/run-report.ts";

const report = {
  schemaVersion: 1,
  runId: "r1",
  challengeId: "todo-api",
  bundleSha256: "a".repeat(64),
  submissionSha256: "b".repeat(64),
  runtime: { name: "node22", version: "v22.23.3" },
  limits: {
    testTimeoutMs: 10_000,
    memoryMb: 512,
    cpuSeconds: 30,
    maxProcesses: 64,
    maxOpenFiles: 256,
    maxFileSizeMb: 16,
    maxOutputBytes: 262_144,
    runWallMs: 300_000,
  },
  staticTests: [
    { id: "s1", category: "functionality", status: "passed", durationMs: 12, message: "" },
  ],
  adversarialTests: [
    {
      id: "a1",
      severity: "critical",
      origin: "prebuilt",
      status: "not-run",
      durationMs: 0,
      message: "no result reported",
    },
  ],
  stability: { verdict: "clean", evidence: [] },
  integrity: [{ trigger: "network-attempt", citation: "connect 1.1.1.1:80 blocked" }],
  exploits: [],
  scan: {
    status: "unavailable",
    findings: [],
    tools: [],
    skipped: [],
    notMeasured: [],
    durationMs: 0,
  },
  deliverables: [
    { name: "NOTES.md", required: true, present: false, bytes: 0, path: null, content: null },
  ],
  sources: [{ path: "app.mjs", content: "export const x = 1;\n", truncated: false }],
  timings: {
    startedAt: "2026-11-30T08:00:00.000Z",
    unpackMs: 1,
    prepareMs: 0,
    testsMs: 10,
    scanMs: 0,
    totalMs: 11,
  },
  notes: [],
  infrastructure: null,
};

describe("run report", () => {
  it("accepts a complete report and defaults evidence counts", () => {
    const r = RunReportSchema.parse(report);
    expect(r.integrity[0]?.count).toBe(1);
    expectTypeOf(r).toEqualTypeOf<RunReport>();
  });
  it("rejects an unknown test status", () => {
    const bad = { ...report, staticTests: [{ ...report.staticTests[0], status: "skipped" }] };
    expect(RunReportSchema.safeParse(bad).success).toBe(false);
  });
  it("accepts a budget-exhausted test and the run's budget", () => {
    const r = RunReportSchema.parse({
      ...report,
      staticTests: [{ ...report.staticTests[0], status: "budget-exhausted", message: "not run" }],
      scan: { ...report.scan, status: "partial", deadline: { ms: 30_000, exhausted: true } },
      budget: {
        limitMs: 300_000,
        source: "derived",
        scanDeadlineMs: 30_000,
        spentMs: 300_004,
        exhausted: true,
        failFast: { consecutive: 3, reason: "the subject timed out on 3 tests", testsFailed: 7 },
      },
    });
    expect(r.staticTests[0]?.status).toBe("budget-exhausted");
    expect(r.budget?.exhausted).toBe(true);
  });
  it("still accepts a report written before the budget existed", () => {
    expect(RunReportSchema.parse(report).budget).toBeUndefined();
  });
  it("rejects a budget with an unknown source", () => {
    const budget = {
      limitMs: 1,
      source: "agent",
      scanDeadlineMs: 1,
      spentMs: 0,
      exhausted: false,
      failFast: null,
    };
    expect(RunReportSchema.safeParse({ ...report, budget }).success).toBe(false);
  });
  it("rejects unknown keys so a field cannot be smuggled in", () => {
    expect(RunReportSchema.safeParse({ ...report, score: 100 }).success).toBe(false);
  });
});
