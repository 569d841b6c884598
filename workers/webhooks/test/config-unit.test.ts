/**
 * The webhooks role's one configuration (src/config.ts, docs/design.md §38): the
 * local-development switch admits loopback receivers only on the configured port range, minus
 * the platform's own port and the runner's; a malformed value is refused by name.
 */
import { ConfigError } from "@bouts/edge";
import { describe, expect, it } from "vitest";
import { readWebhooksConfig, resolveLinkOrigin, resolveTargetOptions } from "../src/config.ts";

const loopback = (vars: Record<string, string>) =>
  resolveTargetOptions({ WEBHOOKS_ALLOW_LOOPBACK: "true", ...vars }).loopbackPorts;

describe("the webhooks configuration", () => {
  it("blocks the platform's and the runner's ports inside the default range", () => {
    expect(
      loopback({
        WEBHOOKS_LINK_ORIGIN: "http://127.0.0.1:9710",
        RUNNER_URL: "http://127.0.0.1:9720",
      }),
    ).toEqual({ min: 9700, max: 9799, blocked: [9710, 9720] });
  });

  it("takes a configured range and refuses a malformed one by name", () => {
    expect(loopback({ WEBHOOKS_LOOPBACK_PORTS: "3000-3999" })).toMatchObject({
      min: 3000,
      max: 3999,
    });
    for (const bad of ["9000", "0-10", "5000-4000", "1-70000", "a-b"]) {
      const read = () => loopback({ WEBHOOKS_LOOPBACK_PORTS: bad });
      expect(read).toThrow(ConfigError);
      expect(read).toThrow(/WEBHOOKS_LOOPBACK_PORTS: /);
    }
  });

  it("refuses a switch other than true or false, and a link origin that is no URL", () => {
    expect(() => readWebhooksConfig({ WEBHOOKS_ALLOW_LOOPBACK: "yes" })).toThrow(
      /WEBHOOKS_ALLOW_LOOPBACK: /,
    );
    expect(() => readWebhooksConfig({ WEBHOOKS_LINK_ORIGIN: "bouts.dev" })).toThrow(
      /WEBHOOKS_LINK_ORIGIN: must be an http\(s\) URL/,
    );
  });

  it("refuses the runner's control API as a target even when its port is in range", () => {
    const options = resolveTargetOptions({
      WEBHOOKS_ALLOW_LOOPBACK: "true",
      WEBHOOKS_LOOPBACK_PORTS: "8000-9000",
      WEBHOOKS_LINK_ORIGIN: "http://127.0.0.1:8787",
      RUNNER_URL: "http://127.0.0.1:8080",
    });
    expect(options.loopbackPorts).toEqual({ min: 8000, max: 9000, blocked: [8787, 8080] });
  });

  it("gives missing variables their documented defaults: no loopback, the public origin", () => {
    expect(resolveTargetOptions({})).toEqual({
      allowLoopback: false,
      blockedHosts: ["api.bouts.dev"],
    });
    expect(resolveLinkOrigin({ WEBHOOKS_LINK_ORIGIN: "" })).toBe("https://api.bouts.dev");
    expect(resolveLinkOrigin({ WEBHOOKS_LINK_ORIGIN: "https://bouts.example.com/" })).toBe(
      "https://bouts.example.com",
    );
  });

  it("is parsed once per env, not per message", () => {
    let reads = 0;
    const env = new Proxy(
      { WEBHOOKS_ALLOW_LOOPBACK: "true" },
      { get: (t, k) => ((reads += 1), Reflect.get(t, k) as unknown) },
    );
    const first = readWebhooksConfig(env);
    const afterFirst = reads;
    for (let i = 0; i < 3; i++) {
      resolveTargetOptions(env);
      resolveLinkOrigin(env);
    }
    expect(readWebhooksConfig(env)).toBe(first);
    expect(reads).toBe(afterFirst);
  });
});
