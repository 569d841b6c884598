/**
 * The platform Worker's own configuration (src/config.ts) and how a misconfigured role answers
 * over HTTP: a 500 problem document, with the variable named in the log (docs/design.md §38).
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { ConfigError } from "@bouts/edge";
import { describe, expect, it, vi } from "vitest";
import { readPlatformConfig } from "../src/config.ts";
import worker from "../src/index.ts";

describe("the platform configuration", () => {
  it("leaves an unset secret unset, its documented default", () => {
    expect(readPlatformConfig({ RUNNER_SHARED_SECRET: "" })).toEqual({
      runnerSharedSecret: undefined,
    });
  });

  it("refuses a short runner secret by name, without echoing it", () => {
    const read = () => readPlatformConfig({ RUNNER_SHARED_SECRET: "short-secret" });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/RUNNER_SHARED_SECRET: must be at least 32 characters/);
    expect(read).not.toThrow(/short-secret/);
  });

  it("is parsed once per env", () => {
    let reads = 0;
    const counted = new Proxy(
      { RUNNER_SHARED_SECRET: "x".repeat(40) },
      { get: (t, k) => ((reads += 1), Reflect.get(t, k) as unknown) },
    );
    const first = readPlatformConfig(counted);
    const afterFirst = reads;
    expect(readPlatformConfig(counted)).toBe(first);
    expect(reads).toBe(afterFirst);
  });

  it("answers 500 on a misconfigured role and logs the variable and its rule", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const bad = { ...env, RUNNER_TIMEOUT_MS: "ten minutes" };
    const res = await worker.fetch(
      new Request("http://platform.test/healthz"),
      bad,
      createExecutionContext(),
    );
    expect(res.status).toBe(500);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(log.mock.calls.flat().map(String).join("\n")).toMatch(/RUNNER_TIMEOUT_MS: /);
    log.mockRestore();
  });
});
