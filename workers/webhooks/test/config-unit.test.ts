/**
 * resolveTargetOptions: the local-development switch admits loopback receivers only on the
 * configured port range, minus the platform's own port and the runner's.
 */
import { describe, expect, it } from "vitest";
import { resolveLoopbackPorts, resolveTargetOptions } from "../src/config.ts";

describe("resolveTargetOptions", () => {
  it("blocks the platform's and the runner's ports inside the default range", () => {
    expect(
      resolveLoopbackPorts({
        WEBHOOKS_LINK_ORIGIN: "http://127.0.0.1:9710",
        RUNNER_URL: "http://127.0.0.1:9720",
      }),
    ).toEqual({ min: 9700, max: 9799, blocked: [9710, 9720] });
  });

  it("takes a configured range and falls back to the default on a malformed one", () => {
    expect(resolveLoopbackPorts({ WEBHOOKS_LOOPBACK_PORTS: "3000-3999" })).toMatchObject({
      min: 3000,
      max: 3999,
    });
    for (const bad of ["9000", "0-10", "5000-4000", "1-70000", "a-b"])
      expect(resolveLoopbackPorts({ WEBHOOKS_LOOPBACK_PORTS: bad })).toMatchObject({
        min: 9700,
        max: 9799,
      });
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

  it("sets no loopback rule without the switch", () => {
    expect(resolveTargetOptions({ WEBHOOKS_ALLOW_LOOPBACK: "false" })).toEqual({
      allowLoopback: false,
      blockedHosts: ["api.bouts.dev"],
    });
  });
});
