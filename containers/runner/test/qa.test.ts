/**
 * Challenge QA against its contract: the report `runChallengeQa` builds is the `QaReport` of
 * @bouts/contracts, the one the platform stores. Runs the reference solution in the sandbox.
 */
import path from "node:path";
import { expect, it } from "vitest";
import { QaReportSchema } from "@bouts/contracts";
import { runChallengeQa } from "../src/challenge/qa.ts";
import { CHALLENGES, createTestEnvironment, prepareDir } from "./helpers.ts";

it("answers a report that satisfies the QaReport contract", async () => {
  const environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
  const challenge = await prepareDir(environment, path.join(CHALLENGES, "deep-merge"));
  const qa = await runChallengeQa(environment, challenge, 2);
  if (!qa.ok) throw new Error(JSON.stringify(qa.error));
  const report = QaReportSchema.parse(qa.value);
  const { manifest } = challenge;
  expect(report.challengeId).toBe(manifest.id);
  expect(report.tests.filter((t) => t.kind !== "generated").map((t) => t.id)).toEqual([
    ...manifest.staticTests.map((t) => t.id),
    ...manifest.adversarialTests.map((t) => t.id),
  ]);
  expect(report.tests.some((t) => t.kind === "generated")).toBe(true);
  expect(report.tests.every((t) => t.runs === 2)).toBe(true);
  expect(report.publishable).toBe(report.removed.length === 0 && report.problems.length === 0);
}, 300_000);
