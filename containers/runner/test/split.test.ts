/**
 * A split challenge's private tests run last, against a subject incarnation of their own, and
 * everything that incarnation produced is marked private (docs/design.md §29). The hostile
 * submission journals every argument and replays it in a later failure, on stderr, in a DNS
 * lookup and in a crash: the public tests and the public evidence must never show a private
 * input. Submissions run only in the sandbox.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { PreparedChallenge } from "../src/challenge/bundle.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import {
  createTestEnvironment,
  FIXTURES,
  listSandboxProcesses,
  prepareDir,
  runSubmissionDir,
} from "./helpers.ts";

let environment: RunnerEnvironment;
let challenge: PreparedChallenge;

beforeAll(async () => {
  environment = await createTestEnvironment();
  challenge = await prepareDir(environment, path.join(FIXTURES, "split-node"));
}, 60_000);

async function run(dir: string) {
  const order: string[] = [];
  const report = await runSubmissionDir(environment, challenge, dir, {
    limits: { testTimeoutMs: 3000 },
    onTest: (id) => order.push(id),
  });
  return { report, order };
}

describe("private tests of a split challenge", () => {
  it("run after every public test, and a journaling submission shows the public part no private input", async () => {
    const { report, order } = await run(path.join(FIXTURES, "split-node-leak"));
    expect(order).toEqual(["p1", "p2", "s1", "s2"]);
    const byId = Object.fromEntries(report.staticTests.map((t) => [t.id, t]));
    // The replayed journal holds only what the public subject was given.
    expect(byId.p2!.status).toBe("failed");
    expect(byId.p2!.message).toContain("journal so far: public-entry,public-check");
    expect(byId.p2!.message).not.toContain("secret");
    expect(byId.p1!.message).not.toContain("secret");
    // The private subject did see the secrets, and what it produced is marked private.
    expect(JSON.stringify(report.integrity)).toContain("secret-alpha-41");
    expect(report.publicEvidence).toBeDefined();
    expect(JSON.stringify(report.publicEvidence)).not.toContain("secret");
    const sources = report.stability.sources!;
    expect(sources).toHaveLength(report.stability.evidence.length);
    const secretLines = report.stability.evidence.flatMap((line, i) =>
      line.includes("secret") ? [sources[i]!] : [],
    );
    expect(secretLines.length).toBeGreaterThan(0);
    for (const s of secretLines) expect(s.part).toBe("private");
    expect(listSandboxProcesses(environment)).toEqual([]);
  }, 90_000);

  it("fail at once, with no subject of their own, when the public one never loaded", async () => {
    const t0 = performance.now();
    const { report, order } = await run(path.join(FIXTURES, "split-node-busy"));
    const wall = performance.now() - t0;
    expect(order).toEqual(["p1", "p2", "s1", "s2"]);
    const byId = Object.fromEntries(report.staticTests.map((t) => [t.id, t]));
    for (const id of ["s1", "s2"]) {
      expect(byId[id]!.status).toBe("failed");
      expect(byId[id]!.message).toMatch(/^not run: the submission's module failed to load/);
    }
    // One start-up limit (3 s) was spent, not two.
    expect(wall).toBeLessThan(5500);
  }, 90_000);

  it("leave an honest solution all its marks, public and private", async () => {
    const { report, order } = await run(path.join(FIXTURES, "split-node", "reference"));
    expect(order).toEqual(["p1", "p2", "s1", "s2"]);
    expect(report.staticTests.every((t) => t.status === "passed")).toBe(true);
    expect(report.stability.verdict).toBe("clean");
    expect(report.publicEvidence).toEqual({ integrity: [], exploits: [] });
  }, 90_000);
});
