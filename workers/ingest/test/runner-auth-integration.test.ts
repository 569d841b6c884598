/**
 * Challenge QA requests are signed with RUNNER_SHARED_SECRET (docs/runner.md, "Authentication"):
 * signed, the runner answers the QA; unsigned or with another secret it answers 401, which is
 * "runner unavailable" (our misconfiguration), never a failed QA blamed on the bundle.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runChallengeQa } from "../src/runner-client.ts";

/** fake-runner.ts's FAKE_RUNNER_URL (that module is Node-side; this file runs in workerd). */
const FAKE_RUNNER_URL = "http://runner.test";
const bundle = () => Uint8Array.from(atob(env.TEST_BUNDLE_DEEP_MERGE), (ch) => ch.charCodeAt(0));

describe("signed challenge QA", () => {
  it("publishes through the real runner when signed", async () => {
    const r = await runChallengeQa(
      env,
      { runnerUrl: FAKE_RUNNER_URL, runnerSharedSecret: env.RUNNER_SHARED_SECRET },
      bundle(),
    );
    expect(r.ok && r.value.passed).toBe(true);
  }, 180_000);

  it("is unavailable, not a failed QA, unsigned or with another secret", async () => {
    for (const secret of [undefined, "another-secret-of-forty-characters-00000"]) {
      const r = await runChallengeQa(
        { RUNNER: env.RUNNER },
        { runnerUrl: FAKE_RUNNER_URL, runnerSharedSecret: secret },
        bundle(),
      );
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error.detail).toMatch(/refused our signature.*RUNNER_SHARED_SECRET/);
    }
  });
});
