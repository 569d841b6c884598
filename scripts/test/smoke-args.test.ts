import { describe, expect, it } from "vitest";
import { parseSmokeArgs } from "../smoke.ts";

const KEY = { BOUTS_OPERATOR_KEY: "bouts_op_x" };

describe("npm run smoke arguments", () => {
  it("takes the origin with or without /v1, and the key from the environment", () => {
    for (const base of ["https://bouts.example.org", "https://bouts.example.org/v1/"]) {
      const r = parseSmokeArgs([base], KEY);
      expect(r).toMatchObject({
        ok: true,
        value: { base: "https://bouts.example.org", operatorKey: "bouts_op_x", receiver: null },
      });
    }
  });

  it("listens on a loopback receiver's own port, and asks where a public one is forwarded", () => {
    const local = parseSmokeArgs(
      ["http://127.0.0.1:8787", "--receiver", "http://127.0.0.1:9750/h"],
      KEY,
    );
    expect(local).toMatchObject({ ok: true, value: { listen: 9750 } });
    const remote = parseSmokeArgs(
      ["https://b.example.org", "--receiver", "https://hooks.example.org/h"],
      KEY,
    );
    expect(remote.ok).toBe(false);
    if (!remote.ok) expect(remote.error).toContain("--listen");
    const forwarded = parseSmokeArgs(
      ["https://b.example.org", "--receiver", "https://hooks.example.org/h", "--listen", "9000"],
      KEY,
    );
    expect(forwarded).toMatchObject({ ok: true, value: { listen: 9000 } });
  });

  it("refuses no key, no URL, two URLs, a non-http URL and a bad timeout", () => {
    expect(parseSmokeArgs(["https://b.example.org"], {}).ok).toBe(false);
    expect(parseSmokeArgs([], KEY).ok).toBe(false);
    expect(parseSmokeArgs(["https://a.example.org", "https://b.example.org"], KEY).ok).toBe(false);
    expect(parseSmokeArgs(["ftp://b.example.org"], KEY).ok).toBe(false);
    expect(parseSmokeArgs(["https://b.example.org", "--timeout", "0"], KEY).ok).toBe(false);
    expect(parseSmokeArgs(["https://b.example.org", "--nope"], KEY).ok).toBe(false);
  });
});
