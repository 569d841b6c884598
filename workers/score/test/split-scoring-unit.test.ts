/**
 * The public part of a run (split-scoring.ts), hostile: a report whose evidence, notes, timings
 * and budget would tell an agent about its private tests loses all of it, and a challenge
 * without a split is left alone.
 */
import { ChallengeManifestSchema, RunReportSchema, type RunReport } from "@bouts/contracts";
import { describe, expect, it } from "vitest";
import { cutPublicPart } from "../src/split-scoring.ts";

const manifest = ChallengeManifestSchema.parse({
  schemaVersion: 1,
  id: "split-unit",
  title: "Split",
  runtime: "node22",
  testFramework: "node:test",
  staticTests: [
    { id: "pub-1", file: "s.test.js", name: "public one", category: "functionality" },
    { id: "hidden-2", file: "s.test.js", name: "secret behaviour", category: "functionality" },
  ],
  adversarialTests: [
    { id: "adv-hidden", file: "a.test.js", name: "secret attack", severity: "high" },
  ],
  split: { private: ["hidden-2", "adv-hidden"] },
});

const test = (id: string, durationMs: number) => ({
  id,
  status: "failed" as const,
  durationMs,
  message: "x",
});

const report = RunReportSchema.parse({
  schemaVersion: 1,
  runId: "r1",
  challengeId: "split-unit",
  bundleSha256: "a".repeat(64),
  submissionSha256: "b".repeat(64),
  runtime: { name: "node22", version: "v22" },
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
    { ...test("pub-1", 10), category: "functionality" },
    { ...test("hidden-2", 7777), category: "functionality" },
  ],
  adversarialTests: [
    { ...test("adv-hidden", 4444), severity: "high", origin: "prebuilt" },
    { ...test("gen-x", 5), severity: "low", origin: "generated" },
  ],
  stability: {
    verdict: "warnings",
    evidence: ["subject crashed during secret behaviour", "slow start"],
  },
  integrity: [{ trigger: "network-attempt", citation: "in hidden-2: connect blocked" }],
  exploits: [],
  scan: {
    status: "complete",
    findings: [],
    tools: [],
    skipped: [],
    notMeasured: [],
    durationMs: 0,
  },
  deliverables: [],
  sources: [],
  timings: {
    startedAt: "2026-12-03T08:00:00.000Z",
    unpackMs: 1,
    prepareMs: 2,
    testsMs: 12_236,
    scanMs: 3,
    totalMs: 12_242,
  },
  notes: ["adv-hidden timed out"],
  infrastructure: null,
  budget: {
    limitMs: 300_000,
    source: "derived",
    scanDeadlineMs: 30_000,
    spentMs: 12_242,
    exhausted: false,
    failFast: { consecutive: 2, reason: "subject faulted", testsFailed: 2 },
  },
});

describe("cutPublicPart", () => {
  it("leaves no private id, name, count or duration in the public report", () => {
    const part = cutPublicPart(report, manifest)!;
    const text = JSON.stringify(part.report);
    for (const marker of ["hidden-2", "adv-hidden", "secret", "7777", "4444", "12236", "12242"])
      expect(text).not.toContain(marker);
    expect(part.report.staticTests.map((t) => t.id)).toEqual(["pub-1"]);
    expect(part.report.adversarialTests.map((t) => t.id)).toEqual(["gen-x"]);
    expect(part.report.stability).toEqual({ verdict: "warnings", evidence: ["slow start"] });
    expect(part.report.timings).toMatchObject({ testsMs: 15, totalMs: 21 });
    expect(part.report.budget).toBeUndefined();
    expect(part.manifest.staticTests.map((t) => t.id)).toEqual(["pub-1"]);
    expect(part.manifest.adversarialTests).toEqual([]);
  });

  it("recomputes the public verdict from the lines' sources: a private crash moves nothing", () => {
    const withSources = (stability: RunReport["stability"]) =>
      RunReportSchema.parse({ ...report, stability });
    // A private test crashed, a public one only warned: the public part says warnings.
    const privateCrash = cutPublicPart(
      withSources({
        verdict: "crashed",
        evidence: ["hidden-2: uncaught exception: boom", "pub-1: DeprecationWarning: old api"],
        sources: [
          { test: "hidden-2", kind: "crash" },
          { test: "pub-1", kind: "warning" },
        ],
      }),
      manifest,
    )!;
    expect(privateCrash.report.stability).toEqual({
      verdict: "warnings",
      evidence: ["pub-1: DeprecationWarning: old api"],
      sources: [{ test: "pub-1", kind: "warning" }],
    });
    // Only private evidence: clean.
    const onlyPrivate = cutPublicPart(
      withSources({
        verdict: "crashed",
        evidence: ["hidden-2: the test process was killed"],
        sources: [{ test: "hidden-2", kind: "crash" }],
      }),
      manifest,
    )!;
    expect(onlyPrivate.report.stability.verdict).toBe("clean");
    // Hostile: a public test's crash whose message names a private test (or mimics a warning)
    // stays a crash: the source decides, never the text. The line itself is dropped (it names
    // a private test), the verdict is not improved.
    const disguised = cutPublicPart(
      withSources({
        verdict: "crashed",
        evidence: ["pub-1: DeprecationWarning: hidden-2 secret behaviour"],
        sources: [{ test: "pub-1", kind: "crash" }],
      }),
      manifest,
    )!;
    expect(disguised.report.stability.verdict).toBe("crashed");
    expect(JSON.stringify(disguised.report)).not.toContain("hidden-2");
    expect(disguised.report.stability.sources).toEqual([]);
    // The public tests' subject: its crash counts in both parts.
    const subject = cutPublicPart(
      withSources({
        verdict: "crashed",
        evidence: ["subject exited with code 1"],
        sources: [{ test: null, kind: "crash" }],
      }),
      manifest,
    )!;
    expect(subject.report.stability.verdict).toBe("crashed");
  });

  it("leaves out everything the private tests' own subject produced, whatever its text", () => {
    // The runner runs the private tests last against a subject of their own and marks its lines
    // `part: "private"`; a journaling submission replays private inputs in such lines, in text
    // that names no private test.
    const journaled = RunReportSchema.parse({
      ...report,
      stability: {
        verdict: "crashed",
        evidence: ["subject: uncaught exception: crash with alpha-41,beta-42", "pub-1: slow"],
        sources: [
          { test: null, kind: "crash", part: "private" },
          { test: "pub-1", kind: "warning", part: "public" },
        ],
      },
      integrity: [
        { trigger: "network-attempt", citation: "blocked DNS lookup of alpha-41-beta-42.example" },
      ],
      exploits: [{ trigger: "fake-test-output", citation: "replayed alpha-41" }],
      publicEvidence: { integrity: [], exploits: [] },
    });
    const part = cutPublicPart(journaled, manifest)!;
    const text = JSON.stringify(part.report);
    expect(text).not.toContain("alpha-41");
    expect(part.report.stability.verdict).toBe("warnings");
    expect(part.report.integrity).toEqual([]);
    expect(part.report.exploits).toEqual([]);
    expect(part.report.publicEvidence).toBeUndefined();
  });

  it("is null for a challenge without a split", () => {
    expect(cutPublicPart(report, { ...manifest, split: undefined })).toBeNull();
  });
});
