// Signatures are checked with the independent `standardwebhooks` package (the reference
// implementation of the specification), never with our own verifier alone.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  createMessageId,
  createSecret,
  parseSecret,
  signPayload,
  verifySignature,
  type SignatureHeaders,
} from "../src/index.ts";
import { decodeBase64, encodeBase64 } from "../src/base64.ts";

const BODY = JSON.stringify({
  type: "webhook.test",
  timestamp: "2026-01-01T00:00:00.000Z",
  data: { endpointId: "ep_1", message: "héllo ✓ 😀" }, // non-ASCII: UTF-8 bytes are signed
});
const OLD = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const NEW = createSecret();

async function sign(secrets: string[], body = BODY, at = new Date()): Promise<SignatureHeaders> {
  const r = await signPayload({ id: "msg_2b4d", timestamp: at, body, secrets });
  if (!r.ok) throw new Error(r.error.reason);
  return r.value;
}

describe("secrets", () => {
  it("creates whsec_ secrets of 32 random bytes that standardwebhooks accepts", () => {
    const a = createSecret();
    const b = createSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
    expect(parseSecret(a).ok && parseSecret(a)).toMatchObject({ value: { length: 32 } });
    expect(() => new Webhook(a)).not.toThrow();
  });

  it("uses the injected random source", () => {
    const secret = createSecret((bytes) => bytes.fill(7));
    expect(secret).toBe("whsec_" + encodeBase64(new Uint8Array(32).fill(7)));
  });

  it("refuses secrets without the prefix, with bad base64, or of the wrong size", () => {
    expect(parseSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toMatchObject({
      ok: false,
      error: { reason: "invalid-secret", detail: "does not start with whsec_" },
    });
    expect(parseSecret("whsec_not*base64")).toMatchObject({ ok: false });
    expect(parseSecret("whsec_" + encodeBase64(new Uint8Array(16)))).toMatchObject({
      ok: false,
      error: { detail: "16 bytes; expected 24–64" },
    });
    expect(parseSecret("whsec_" + encodeBase64(new Uint8Array(65)))).toMatchObject({ ok: false });
  });

  it("creates distinct url-safe message ids", () => {
    const id = createMessageId();
    expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(createMessageId()).not.toBe(id);
  });
});

describe("base64", () => {
  it("round-trips every length and refuses non-canonical padding bits", () => {
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      const text = encodeBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString("base64"));
      expect(decodeBase64(text)).toEqual(bytes);
    }
    expect(decodeBase64("QQ==")).toEqual(new Uint8Array([65]));
    expect(decodeBase64("QR==")).toBeNull(); // same byte, stray bits under the padding
    expect(decodeBase64("QQ")).toBeNull();
    expect(decodeBase64("Q-_=")).toBeNull();
  });
});

describe("signPayload", () => {
  it("produces headers that standardwebhooks verifies", async () => {
    const headers = await sign([OLD]);
    expect(headers["webhook-id"]).toBe("msg_2b4d");
    expect(headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(OLD).verify(BODY, { ...headers })).toEqual(JSON.parse(BODY));
  });

  it("signs with every active secret during a rotation, and each verifies alone", async () => {
    const headers = await sign([NEW, OLD]);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(NEW).verify(BODY, { ...headers })).not.toThrow();
    expect(() => new Webhook(OLD).verify(BODY, { ...headers })).not.toThrow();
    expect(() => new Webhook(createSecret()).verify(BODY, { ...headers })).toThrow(
      "No matching signature found",
    );
  });

  it("fails verification when one byte of the body changes", async () => {
    const headers = await sign([OLD]);
    const tampered = BODY.replace("héllo", "hello");
    expect(() => new Webhook(OLD).verify(tampered, { ...headers })).toThrow(
      "No matching signature found",
    );
  });

  it("fails verification when the id or timestamp is swapped", async () => {
    const headers = await sign([OLD]);
    expect(() =>
      new Webhook(OLD).verify(BODY, { ...headers, "webhook-id": "msg_other" }),
    ).toThrow();
    const ts = String(Number(headers["webhook-timestamp"]) - 1);
    expect(() => new Webhook(OLD).verify(BODY, { ...headers, "webhook-timestamp": ts })).toThrow();
  });

  it("puts whole seconds in webhook-timestamp", async () => {
    const headers = await sign([OLD], BODY, new Date(1_767_225_600_999));
    expect(headers["webhook-timestamp"]).toBe("1767225600");
  });

  it("matches the signature the reference library computes", async () => {
    const at = new Date(1_767_225_600_000);
    const headers = await sign([OLD], BODY, at);
    expect(headers["webhook-signature"]).toBe(new Webhook(OLD).sign("msg_2b4d", at, BODY));
  });

  it("refuses a bad id, no secret, or too many secrets", async () => {
    const base = { timestamp: new Date(), body: BODY };
    expect(await signPayload({ ...base, id: "msg.1", secrets: [OLD] })).toMatchObject({
      ok: false,
      error: { reason: "invalid-message-id" },
    });
    expect(await signPayload({ ...base, id: "msg_1", secrets: [] })).toMatchObject({
      ok: false,
      error: { reason: "no-secret" },
    });
    expect(
      await signPayload({ ...base, id: "msg_1", secrets: [OLD, OLD, OLD, OLD, OLD] }),
    ).toMatchObject({ ok: false, error: { reason: "too-many-secrets", count: 5 } });
    expect(await signPayload({ ...base, id: "msg_1", secrets: [OLD, "nope"] })).toMatchObject({
      ok: false,
      error: { reason: "invalid-secret", index: 1 },
    });
  });
});

describe("verifySignature", () => {
  it("accepts what the reference library signs, naming the matching secret", async () => {
    const now = new Date();
    const headers = {
      "Webhook-Id": "msg_ref",
      "Webhook-Timestamp": String(Math.floor(now.getTime() / 1000)),
      "Webhook-Signature": new Webhook(OLD).sign("msg_ref", now, BODY),
    };
    const r = await verifySignature({ headers, body: BODY, secrets: [NEW, OLD], now });
    expect(r).toEqual({ ok: true, value: { secretIndex: 1 } });
  });

  it("rejects a changed body, a stale timestamp and missing headers", async () => {
    const now = new Date();
    const headers = await sign([OLD], BODY, now);
    const h = new Headers({ ...headers });
    expect(
      await verifySignature({ headers: h, body: BODY + " ", secrets: [OLD], now }),
    ).toMatchObject({ ok: false, error: { reason: "no-matching-signature" } });
    const later = new Date(now.getTime() + 301_000);
    expect(
      await verifySignature({ headers: h, body: BODY, secrets: [OLD], now: later }),
    ).toMatchObject({ ok: false, error: { reason: "timestamp-out-of-tolerance" } });
    expect(
      await verifySignature({ headers: { "webhook-id": "x" }, body: BODY, secrets: [OLD], now }),
    ).toMatchObject({
      ok: false,
      error: { reason: "missing-header", header: "webhook-timestamp" },
    });
  });
});
