import { createHmac, createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  authenticateRunnerRequest,
  buildSignedRequest,
  createReplayGuard,
  describeRunnerAuthError,
  signRunnerRequest,
  type RunnerAuthError,
} from "../src/index.ts";

const SECRET = "s".repeat(16) + "e".repeat(16) + "cret";
const NOW = new Date("2026-12-02T09:00:00Z");
const NONCE = "nonce-0123456789abcdef";
const body = new TextEncoder().encode("--b\r\nhello\r\n--b--\r\n");

async function headersFor(overrides: { secret?: string; now?: Date; nonce?: string } = {}) {
  const r = await signRunnerRequest({
    method: "POST",
    path: "/v1/runs",
    body,
    secret: overrides.secret ?? SECRET,
    now: overrides.now ?? NOW,
    nonce: overrides.nonce ?? NONCE,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return new Headers({ ...r.value });
}

async function check(
  headers: Headers,
  opts: {
    path?: string;
    body?: Uint8Array<ArrayBuffer>;
    now?: Date;
    replay?: ReturnType<typeof createReplayGuard>;
  } = {},
) {
  return authenticateRunnerRequest({
    method: "POST",
    path: opts.path ?? "/v1/runs",
    headers,
    readBody: () => Promise.resolve(opts.body ?? body),
    secret: SECRET,
    now: opts.now ?? NOW,
    ...(opts.replay ? { replay: opts.replay } : {}),
  });
}

const reason = (r: { ok: boolean; error?: RunnerAuthError }) => (r.ok ? "ok" : r.error!.reason);

describe("runner request signing", () => {
  it("signs the documented string with HMAC-SHA256 (checked with node:crypto)", async () => {
    const h = await headersFor();
    const digest = createHash("sha256").update(body).digest("hex");
    const ts = String(NOW.getTime() / 1000);
    const expected = createHmac("sha256", SECRET)
      .update(["BOUTS-RUNNER-HMAC-SHA256-V1", "POST", "/v1/runs", ts, NONCE, digest].join("\n"))
      .digest("hex");
    expect(h.get("x-bouts-timestamp")).toBe(ts);
    expect(h.get("x-bouts-signature")).toBe(`v1=${expected}`);
  });

  it("accepts a request it signed", async () => {
    expect(reason(await check(await headersFor()))).toBe("ok");
  });

  it("refuses an unsigned request, naming the missing header", async () => {
    const r = await check(new Headers());
    expect(r).toEqual({
      ok: false,
      error: { reason: "missing-header", header: "x-bouts-timestamp" },
    });
  });

  it("refuses a signature made with another secret", async () => {
    expect(reason(await check(await headersFor({ secret: "x".repeat(40) })))).toBe("bad-signature");
  });

  it("refuses a body swapped after signing", async () => {
    const swapped = new TextEncoder().encode("--b\r\nevil!\r\n--b--\r\n");
    expect(reason(await check(await headersFor(), { body: swapped }))).toBe("bad-signature");
  });

  it("refuses another path or method than the one signed", async () => {
    expect(reason(await check(await headersFor(), { path: "/v1/runs/generated" }))).toBe(
      "bad-signature",
    );
  });

  it("refuses a timestamp outside ±300 s, saying how far off it is", async () => {
    const stale = await headersFor({ now: new Date(NOW.getTime() - 301_000) });
    const r = await check(stale);
    expect(r).toEqual({
      ok: false,
      error: { reason: "timestamp-out-of-tolerance", skewSeconds: -301, windowSeconds: 300 },
    });
    expect(describeRunnerAuthError(r.ok ? ({ reason: "replayed" } as const) : r.error)).toMatch(
      /-301 s from the runner's clock/,
    );
    const future = await headersFor({ now: new Date(NOW.getTime() + 301_000) });
    expect(reason(await check(future))).toBe("timestamp-out-of-tolerance");
    const edge = await headersFor({ now: new Date(NOW.getTime() - 300_000) });
    expect(reason(await check(edge))).toBe("ok");
  });

  it("refuses a replay within the window and forgets nonces once they expire", async () => {
    const guard = createReplayGuard();
    const h = await headersFor();
    expect(reason(await check(h, { replay: guard }))).toBe("ok");
    expect(reason(await check(h, { replay: guard }))).toBe("replayed");
    // A different nonce is a different request.
    expect(
      reason(await check(await headersFor({ nonce: "another-nonce-0123456" }), { replay: guard })),
    ).toBe("ok");
    expect(guard.size).toBe(2);
    const later = new Date(NOW.getTime() + 301_000);
    guard.claim("unrelated-nonce-000000", later.getTime() / 1000, later);
    expect(guard.size).toBe(1);
  });

  it("does not remember nonces of requests that fail verification", async () => {
    const guard = createReplayGuard();
    await check(await headersFor({ secret: "x".repeat(40) }), { replay: guard });
    expect(guard.size).toBe(0);
  });

  it("refuses a short secret on both sides and malformed headers", async () => {
    const r = await signRunnerRequest({
      method: "GET",
      path: "/",
      body,
      secret: "short",
      now: NOW,
      nonce: NONCE,
    });
    expect(reason(r)).toBe("invalid-secret");
    const h = await headersFor();
    h.set("x-bouts-signature", "v1=zz");
    expect(reason(await check(h))).toBe("invalid-header");
  });

  it("builds a signed multipart request whose bytes verify", async () => {
    const form = new FormData();
    form.set("bundle", new Blob([new Uint8Array([1, 2, 3])]), "bundle.tar.gz");
    const r = await buildSignedRequest({
      url: "http://runner.test/v1/challenges/qa",
      method: "POST",
      body: form,
      secret: SECRET,
      now: NOW,
      nonce: NONCE,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const req = r.value;
    expect(req.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    const bytes = new Uint8Array(await req.clone().arrayBuffer());
    const ok = await authenticateRunnerRequest({
      method: "POST",
      path: "/v1/challenges/qa",
      headers: req.headers,
      readBody: () => Promise.resolve(bytes),
      secret: SECRET,
      now: NOW,
    });
    expect(reason(ok)).toBe("ok");
    expect((await req.formData()).get("bundle")).toBeInstanceOf(Blob);
  });
});
