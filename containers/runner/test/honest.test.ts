/**
 * Honest solutions written unusually (chatty logging with pass-like lines, class caches, Maps and
 * null-prototype objects, generators, threads) keep full marks with no evidence against them:
 * every hidden, pre-built and generated test passes, stability is clean, nothing is cited and the
 * scan finds nothing. Each folder in test/honest/ names its challenge by its prefix.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { PreparedChallenge } from "../src/challenge/bundle.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import { CHALLENGES, createTestEnvironment, prepareDir, runSubmissionDir } from "./helpers.ts";

const HONEST = path.join(import.meta.dirname, "honest");
const CHALLENGE_OF: Record<string, string> = {
  "deep-merge": "deep-merge",
  "bill-split": "bill-split-py",
};

let environment: RunnerEnvironment;
const prepared = new Map<string, PreparedChallenge>();

beforeAll(async () => {
  environment = await createTestEnvironment();
}, 60_000);

describe("honest unusual solutions", () => {
  for (const name of readdirSync(HONEST).sort()) {
    const prefix = Object.keys(CHALLENGE_OF).find((p) => name.startsWith(p));
    it(`${name} keeps full marks with no evidence`, async () => {
      const id = CHALLENGE_OF[prefix!]!;
      if (!prepared.has(id))
        prepared.set(id, await prepareDir(environment, path.join(CHALLENGES, id)));
      const report = await runSubmissionDir(
        environment,
        prepared.get(id)!,
        path.join(HONEST, name),
      );
      const notPassed = [...report.staticTests, ...report.adversarialTests].filter(
        (t) => t.status !== "passed",
      );
      expect(notPassed).toEqual([]);
      expect(report.adversarialTests.some((t) => t.origin === "generated")).toBe(true);
      expect(report.stability).toMatchObject({ verdict: "clean", evidence: [] });
      expect(report.exploits).toEqual([]);
      expect(report.integrity).toEqual([]);
      expect(report.scan.findings).toEqual([]);
    }, 120_000);
  }
});
