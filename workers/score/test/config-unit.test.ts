/** The score role's one configuration (src/config.ts, docs/design.md §38). */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { ConfigError } from "@bouts/edge";
import { describe, expect, it, vi } from "vitest";
import { consumeSubmissions, readScoreConfig, type ConsumerEnv } from "../src/index.ts";

describe("the score configuration", () => {
  it("gives missing optional variables their documented defaults", () => {
    expect(readScoreConfig({ RUNNER_URL: "", JUDGE_MODE: "" })).toEqual({
      runner: { url: "", sharedSecret: undefined, timeoutMs: 600_000 },
      judges: {
        mode: "offline",
        models: [],
        openAiBaseUrl: undefined,
        openAiApiKey: undefined,
        timeoutMs: 30_000,
      },
      generator: {
        mode: "deterministic",
        model: undefined,
        openAiBaseUrl: undefined,
        openAiApiKey: undefined,
        timeoutMs: 60_000,
      },
      generationSecret: undefined,
      observedUsage: {
        source: "none",
        logsApiUrl: "https://api.cloudflare.com/client/v4",
        accountId: undefined,
        gatewayId: undefined,
        apiToken: undefined,
      },
    });
  });

  it("refuses a bad value, naming the variable and the rule", () => {
    const bad = (vars: Record<string, string>) => () => readScoreConfig(vars);
    expect(bad({ JUDGE_TIMEOUT_MS: "30s" })).toThrow(ConfigError);
    expect(bad({ JUDGE_TIMEOUT_MS: "30s" })).toThrow(/JUDGE_TIMEOUT_MS: .*number/);
    expect(bad({ RUNNER_TIMEOUT_MS: "0" })).toThrow(/RUNNER_TIMEOUT_MS: /);
    expect(bad({ JUDGE_MODE: "gpt" })).toThrow(/JUDGE_MODE: /);
    expect(bad({ JUDGE_MODE: "workers-ai" })).toThrow(
      /JUDGE_MODELS: required with JUDGE_MODE=workers-ai/,
    );
    expect(bad({ JUDGE_MODE: "openai", JUDGE_MODELS: "m" })).toThrow(/JUDGE_OPENAI_BASE_URL: /);
    expect(bad({ JUDGE_MODE: "workers-ai", JUDGE_MODELS: "a,b,c,d,e,f" })).toThrow(
      /JUDGE_MODELS: must name at most 5 models/,
    );
    expect(bad({ GENERATOR_MODE: "openai" })).toThrow(
      /GENERATOR_MODEL: .*GENERATOR_OPENAI_BASE_URL: /,
    );
    expect(bad({ GENERATION_SECRET: "too-short" })).toThrow(/GENERATION_SECRET: .*32/);
    expect(bad({ GENERATION_SECRET: "too-short" })).not.toThrow(/too-short/);
    expect(bad({ RUNNER_URL: "runner:8080" })).toThrow(/RUNNER_URL: must be an http\(s\) URL/);
    expect(bad({ GATEWAY_USAGE_SOURCE: "logs" })).toThrow(/GATEWAY_USAGE_SOURCE: /);
    expect(bad({ GATEWAY_USAGE_SOURCE: "ai-gateway", GATEWAY_LOGS_API_TOKEN: "t0ken" })).toThrow(
      /GATEWAY_LOGS_ACCOUNT_ID: required with GATEWAY_USAGE_SOURCE=ai-gateway.*GATEWAY_LOGS_GATEWAY_ID: /,
    );
    expect(
      bad({ GATEWAY_USAGE_SOURCE: "ai-gateway", GATEWAY_LOGS_API_TOKEN: "t0ken" }),
    ).not.toThrow(/t0ken/);
    expect(bad({ GATEWAY_LOGS_ACCOUNT_ID: "../accounts" })).toThrow(/GATEWAY_LOGS_ACCOUNT_ID: /);
  });

  it("retries a batch under a bad configuration, logging the variable, and runs no message", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const bad = { ...env, JUDGE_TIMEOUT_MS: "soon" } as unknown as ConsumerEnv;
    const batch = createMessageBatch("bouts-submissions", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { nonsense: true } },
    ]);
    const ctx = createExecutionContext();
    await consumeSubmissions(batch, bad);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["m1"]);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/JUDGE_TIMEOUT_MS: /));
    log.mockRestore();
  });

  it("is parsed once per env, not per message or per batch", async () => {
    let reads = 0;
    const counted = new Proxy(env, {
      get: (t, k) => {
        if (k === "JUDGE_TIMEOUT_MS") reads += 1;
        return Reflect.get(t, k) as unknown;
      },
    });
    const dlq = vi.spyOn(env.SUBMISSIONS_DLQ, "send").mockResolvedValue(undefined as never);
    for (const id of ["a", "b"]) {
      const batch = createMessageBatch("bouts-submissions", [
        { id: `${id}1`, timestamp: new Date(), attempts: 1, body: { nonsense: true } },
        { id: `${id}2`, timestamp: new Date(), attempts: 1, body: { nonsense: true } },
      ]);
      await consumeSubmissions(batch, counted);
    }
    expect(reads).toBe(1);
    expect(readScoreConfig(counted)).toBe(readScoreConfig(counted));
    expect(reads).toBe(1);
    dlq.mockRestore();
  });
});
