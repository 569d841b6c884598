/**
 * One run's fork bomb must not starve a concurrent honest run. These tests measure against
 * deadlines, so they run in their own vitest project after every other project (see
 * containers/runner/vitest.contention.config.ts): what they measure is the sandbox's fairness
 * between runs, not how busy the rest of the test suite keeps the machine.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { computeSha256, packDir, type PreparedChallenge } from "../../src/challenge/bundle.ts";
import { runJob, type RunnerEnvironment } from "../../src/job.ts";
import {
  createTestEnvironment,
  EXPLOITS,
  FIXTURES,
  listSandboxProcesses,
  prepareDir,
} from "../helpers.ts";

let environment: RunnerEnvironment;
const challenges: Record<string, PreparedChallenge> = {};

beforeAll(async () => {
  environment = await createTestEnvironment();
  // Which containment the host gives decides what fairness rests on: print it, so a failure
  // in CI says whether cgroups (per-run CPU share) or only rlimits were in force.
  console.log(`runner containment: cgroups ${environment.cgroups?.version ?? "none"}`);
  for (const id of ["exploit-node", "budget-node", "budget-python"])
    challenges[id] = await prepareDir(environment, path.join(FIXTURES, id));
}, 60_000);

function runBoth(bombDir: string, goodDir: string, challengeId: string, testTimeoutMs: number) {
  const run = async (dir: string, id: string) => {
    const bytes = await packDir(dir);
    return runJob({
      runId: `${id}-${randomUUID().slice(0, 8)}`,
      challenge: challenges[challengeId]!,
      submission: bytes,
      submissionSha256: computeSha256(bytes),
      requestedLimits: { testTimeoutMs },
      environment,
    });
  };
  return Promise.all([run(bombDir, "bomb"), run(goodDir, "good")]);
}

describe("a fork bomb leaves its neighbours alone", () => {
  it("a fork bomb in one run does not starve a concurrent run", async () => {
    const [bomb, good] = await runBoth(
      path.join(EXPLOITS, "fork-bomb"),
      path.join(FIXTURES, "exploit-node", "reference"),
      "exploit-node",
      5000,
    );
    if (!bomb.ok || !good.ok) throw new Error("run failed");
    expect(bomb.value.infrastructure).toBeNull();
    expect(good.value.staticTests.map((t) => t.status)).toEqual(["passed", "passed"]);
    // The well-behaved run's tests take milliseconds; starvation would push them to seconds.
    for (const t of good.value.staticTests) expect(t.durationMs).toBeLessThan(2000);
    expect(good.value.stability.verdict).toBe("clean");
  }, 120_000);

  for (const [bombName, challengeId] of [
    ["fork-bomb-import", "budget-node"],
    ["fork-bomb-import-python", "budget-python"],
  ] as const) {
    it(`${bombName} ends within its budget and leaves a concurrent honest run as it is alone`, async () => {
      const [bomb, good] = await runBoth(
        path.join(EXPLOITS, bombName),
        path.join(FIXTURES, challengeId, "reference"),
        challengeId,
        3000,
      );
      if (!bomb.ok || !good.ok) throw new Error("run failed");
      expect(bomb.value.infrastructure).toBeNull();
      expect(bomb.value.budget!.spentMs).toBeLessThan(bomb.value.budget!.limitMs);
      expect(good.value.staticTests.every((t) => t.status === "passed")).toBe(true);
      for (const t of good.value.staticTests) expect(t.durationMs).toBeLessThan(2000);
      expect(good.value.stability.verdict).toBe("clean");
      expect(good.value.budget).toMatchObject({ exhausted: false, failFast: null });
      expect(listSandboxProcesses(environment)).toEqual([]);
    }, 120_000);
  }
});
