/**
 * The Python subject reports built-in pollution with functions it captured before the
 * submission loaded: a submission that replaces json.dumps to strip its own pollution from the
 * answer is still caught. Submissions run only in the sandbox.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { PreparedChallenge } from "../src/challenge/bundle.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import { createTestEnvironment, FIXTURES, prepareDir, runSubmissionDir } from "./helpers.ts";

let environment: RunnerEnvironment;
let challenge: PreparedChallenge;
const DIR = path.join(FIXTURES, "pollution-python");

beforeAll(async () => {
  environment = await createTestEnvironment();
  challenge = await prepareDir(environment, DIR);
}, 60_000);

async function statusOf(folder: string) {
  const report = await runSubmissionDir(environment, challenge, path.join(DIR, folder), {
    limits: { testTimeoutMs: 5000 },
  });
  return report.staticTests[0]!;
}

describe("the Python subject's pollution probe", () => {
  it("still reports pollution when the submission replaces json.dumps to hide it", async () => {
    const t = await statusOf("hide-json-dumps");
    expect(t.status).toBe("failed");
    expect(t.message).toContain("polluted_by_merge");
  }, 60_000);

  it("passes an honest merge", async () => {
    expect((await statusOf("reference")).status).toBe("passed");
  }, 60_000);
});
