import { describe, expect, expectTypeOf, it } from "vitest";
import { ChallengeManifestSchema } from "../src/challenge-bundle.ts";
import { QaReportSchema, type QaReport } from "../src/qa-report.ts";

const manifest = ChallengeManifestSchema.parse({
  schemaVersion: 1,
  id: "todo-api",
  title: "Todo API",
  runtime: "node22",
  testFramework: "node:test",
  staticTests: [{ id: "s1", file: "static.test.mjs", name: "creates", category: "functionality" }],
  adversarialTests: [{ id: "a1", file: "adv.test.mjs", name: "sqli", severity: "critical" }],
});

const report = {
  challengeId: "todo-api",
  repeats: 3,
  publishable: false,
  tests: [
    { id: "s1", kind: "static", passes: 3, runs: 3, verdict: "stable", lastMessage: "" },
    {
      id: "a1",
      kind: "adversarial",
      passes: 2,
      runs: 3,
      verdict: "flaky",
      lastMessage: "failed: expected 400",
    },
    {
      id: "gen-add.negative",
      kind: "generated",
      passes: 0,
      runs: 3,
      verdict: "failing",
      lastMessage: "failed: threw",
    },
  ],
  removed: ["a1", "gen-add.negative"],
  problems: ["generated candidates failed on the reference; add them to generation.exclude"],
  cleanedManifest: {
    ...manifest,
    adversarialTests: [],
    generation: { ...manifest.generation, exclude: ["gen-add.negative"] },
  },
};

describe("challenge QA report", () => {
  it("parses the report the runner answers, typed as QaReport", () => {
    const r = QaReportSchema.parse(report);
    expect(r.tests.map((t) => t.verdict)).toEqual(["stable", "flaky", "failing"]);
    expectTypeOf(r).toEqualTypeOf<QaReport>();
  });
  it("accepts a cleaned manifest with no static test left", () => {
    const none = { ...report, cleanedManifest: { ...report.cleanedManifest, staticTests: [] } };
    expect(QaReportSchema.safeParse(none).success).toBe(true);
  });
  it("rejects an unknown verdict and a field the report does not have", () => {
    const badVerdict = { ...report, tests: [{ ...report.tests[0], verdict: "passed" }] };
    expect(QaReportSchema.safeParse(badVerdict).success).toBe(false);
    expect(QaReportSchema.safeParse({ ...report, extra: 1 }).success).toBe(false);
  });
  it("rejects a cleaned manifest that is not a manifest", () => {
    const bad = { ...report, cleanedManifest: { ...report.cleanedManifest, runtime: "ruby" } };
    expect(QaReportSchema.safeParse(bad).success).toBe(false);
  });
});
