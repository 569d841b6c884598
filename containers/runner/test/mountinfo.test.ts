/**
 * What a sandbox can learn of the host from /proc/self/mountinfo: the source path of each bind
 * mount. The sources are staged under the work dir (sandbox/stage.ts) and the run's folder has an
 * opaque name, so neither the runner's checkout nor the run id shows.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { PreparedChallenge } from "../src/challenge/bundle.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import { createTestEnvironment, FIXTURES, prepareDir, runSubmissionDir } from "./helpers.ts";

let environment: RunnerEnvironment;
let challenge: PreparedChallenge;
const CHECKOUT = path.resolve(import.meta.dirname, "../../..");

beforeAll(async () => {
  environment = await createTestEnvironment();
  challenge = await prepareDir(environment, path.join(FIXTURES, "exploit-node"));
}, 60_000);

describe("mount sources seen from the sandbox", () => {
  it("name neither the runner's checkout nor the run id", async () => {
    const runId = "run-id-7f3a9c-visible";
    const report = await runSubmissionDir(
      environment,
      challenge,
      path.join(FIXTURES, "mountinfo-probe"),
      { runId, limits: { testTimeoutMs: 3000 } },
    );
    const message = report.staticTests.find((t) => t.id === "adds")!.message;
    // The probe saw its mounts (the workspace, the harness, the interpreter) ...
    expect(message).toContain("roots:");
    expect(message).toContain("/work<-");
    expect(message).toContain("/opt/bouts/harness<-");
    // ... and none of them names the checkout or the run.
    expect(message).not.toContain(CHECKOUT);
    expect(message).not.toContain(runId);
  }, 60_000);
});
