/**
 * The score role's runner client signs with RUNNER_SHARED_SECRET, and the real runner (started
 * by vitest.config.ts with the same secret) checks it (docs/runner.md, "Authentication"): a
 * signed run is scored, an unsigned or wrongly signed one is refused with 401 and comes back as
 * a retryable runner failure whose detail names the secret.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { requestRun, type RunnerEnv } from "../src/runner-client.ts";

async function fixture(path: string): Promise<Uint8Array> {
  const res = await env.FIXTURES.fetch(`http://fixtures/${path}`);
  if (!res.ok) throw new Error(`fixture ${path}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

const runnerEnv = (overrides: Partial<RunnerEnv> = {}): RunnerEnv => ({
  RUNNER_URL: "",
  RUNNER_HTTP: env.RUNNER_HTTP,
  RUNNER_SHARED_SECRET: env.RUNNER_SHARED_SECRET,
  ...overrides,
});

describe("signed runner requests through the real runner", () => {
  it("runs a signed request end to end", async () => {
    const r = await requestRun(runnerEnv(), {
      runId: "signed-e2e",
      submission: await fixture("submission/deep-merge/complete"),
      bundle: await fixture("bundle/deep-merge"),
    });
    expect(r.ok && r.value.runId).toBe("signed-e2e");
    expect(r.ok && r.value.staticTests.every((t) => t.status === "passed")).toBe(true);
  }, 120_000);

  it("is refused unsigned, and with another secret, as a retryable runner failure", async () => {
    const req = {
      runId: "refused-auth",
      submission: await fixture("submission/deep-merge/complete"),
      bundle: await fixture("bundle/deep-merge"),
    };
    for (const secret of [undefined, "another-secret-of-forty-characters-00000"]) {
      const r = await requestRun(runnerEnv({ RUNNER_SHARED_SECRET: secret }), req);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toMatchObject({ reason: "runner-unavailable", retryable: true });
      expect(!r.ok && r.error.detail).toMatch(/refused our signature.*RUNNER_SHARED_SECRET/);
    }
  });
});
