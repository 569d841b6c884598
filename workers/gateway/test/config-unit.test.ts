/**
 * The gateway role's one configuration (src/config.ts, docs/design.md §38): no upstream means
 * the gateway is off; the upstream's URL gets `/chat/completions`; a malformed value is refused
 * by name and a secret's value never appears in the error; each env is parsed once.
 */
import { ConfigError } from "@bouts/edge";
import { describe, expect, it } from "vitest";
import { GATEWAY_TIMEOUT_MS_DEFAULT, readGatewayConfig } from "../src/config.ts";

describe("the gateway configuration", () => {
  it("gives missing variables their documented defaults: no upstream, openai, two minutes", () => {
    expect(readGatewayConfig({ GATEWAY_UPSTREAM_URL: "" })).toEqual({
      completionsUrl: null,
      upstreamKey: undefined,
      kind: "openai",
      aigToken: undefined,
      timeoutMs: GATEWAY_TIMEOUT_MS_DEFAULT,
    });
  });

  it("appends /chat/completions to the upstream's base URL, once", () => {
    for (const base of ["http://127.0.0.1:9000/v1", "http://127.0.0.1:9000/v1/"])
      expect(readGatewayConfig({ GATEWAY_UPSTREAM_URL: base }).completionsUrl).toBe(
        "http://127.0.0.1:9000/v1/chat/completions",
      );
  });

  it("refuses a malformed value by name, without showing a secret", () => {
    expect(() => readGatewayConfig({ GATEWAY_UPSTREAM_URL: "gateway.ai" })).toThrow(
      /GATEWAY_UPSTREAM_URL: must be an http\(s\) URL/,
    );
    expect(() => readGatewayConfig({ GATEWAY_UPSTREAM_KIND: "anthropic" })).toThrow(ConfigError);
    for (const bad of ["0", "2s", "1e9"])
      expect(() => readGatewayConfig({ GATEWAY_TIMEOUT_MS: bad })).toThrow(/GATEWAY_TIMEOUT_MS: /);
    try {
      readGatewayConfig({ GATEWAY_UPSTREAM_KEY: "sk-secret-value", GATEWAY_TIMEOUT_MS: "x" });
    } catch (e) {
      expect(String(e)).not.toContain("sk-secret-value");
    }
  });

  it("parses each env once", () => {
    const env = { GATEWAY_UPSTREAM_URL: "https://gateway.ai.cloudflare.com/v1/acct/gw/compat" };
    expect(readGatewayConfig(env)).toBe(readGatewayConfig(env));
  });
});
