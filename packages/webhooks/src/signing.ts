/**
 * @module webhooks/signing
 * Standard Webhooks signatures: HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`,
 * sent as `webhook-signature: v1,<base64>`, one entry per active secret (so receivers keep
 * verifying across a rotation; docs/webhooks.md, "Headers and signature"). Invariants: the bytes
 * sent are the bytes signed (the string body's UTF-8; never re-serialize it in between); only
 * web-standard APIs, so the same code runs on Workers and Node; no clock: timestamps are arguments.
 */
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { err, ok, type Result } from "@bouts/result";

/** The prefix of every secret, as in the Standard Webhooks libraries. */
export const SECRET_PREFIX = "whsec_";
/** Random bytes in a new secret (the specification allows 24–64). */
export const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
/** How far a receiver lets `webhook-timestamp` drift from its clock (the specification's 5 min). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
/** At most this many signatures go in one header (old and new during a rotation, plus margin). */
export const MAX_ACTIVE_SECRETS = 4;

const MESSAGE_ID = /^[A-Za-z0-9_-]{1,128}$/;
const encoder = new TextEncoder();

/** The three headers that carry a Standard Webhooks signature. */
export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** Why a payload could not be signed or a signature did not verify. */
export type SigningError =
  | { reason: "invalid-secret"; index: number; detail: string }
  | { reason: "no-secret" }
  | { reason: "too-many-secrets"; count: number }
  | { reason: "invalid-message-id"; detail: string }
  | { reason: "invalid-timestamp"; detail: string };

/** Why {@link verifySignature} refused a delivery. */
export type VerificationError =
  | SigningError
  | { reason: "missing-header"; header: keyof SignatureHeaders }
  | { reason: "timestamp-out-of-tolerance"; skewSeconds: number }
  | { reason: "no-matching-signature" };

// ─── Secrets and ids ───

/**
 * Creates a new endpoint secret: `whsec_` + base64 of 32 random bytes. Show it to the agent
 * once; store it as given (it is the key material, not a hash of it).
 * @example createSecret() // "whsec_Q2hh…="
 */
export function createSecret(
  random: (bytes: Uint8Array<ArrayBuffer>) => void = fillRandom,
): string {
  const bytes = new Uint8Array(SECRET_BYTES);
  random(bytes);
  return SECRET_PREFIX + encodeBase64(bytes);
}

/** Creates a message id (`msg_` + 22 base64url characters of 16 random bytes) for `webhook-id`. */
export function createMessageId(
  random: (bytes: Uint8Array<ArrayBuffer>) => void = fillRandom,
): string {
  const bytes = new Uint8Array(16);
  random(bytes);
  return "msg_" + encodeBase64(bytes).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

/** Parses a `whsec_` secret into its key bytes (24–64 bytes of canonical base64). */
export function parseSecret(
  secret: string,
  index = 0,
): Result<Uint8Array<ArrayBuffer>, SigningError> {
  if (!secret.startsWith(SECRET_PREFIX))
    return err({ reason: "invalid-secret", index, detail: `does not start with ${SECRET_PREFIX}` });
  const key = decodeBase64(secret.slice(SECRET_PREFIX.length));
  if (!key) return err({ reason: "invalid-secret", index, detail: "not canonical base64" });
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES)
    return err({
      reason: "invalid-secret",
      index,
      detail: `${key.length} bytes; expected ${MIN_SECRET_BYTES}–${MAX_SECRET_BYTES}`,
    });
  return ok(key);
}

// ─── Signing ───

/** What {@link signPayload} signs. */
export interface SignOptions {
  /** The message id; reuse it for every retry of the same message so receivers can dedupe. */
  id: string;
  /** When this attempt is sent; the header carries whole seconds since the epoch. */
  timestamp: Date;
  /** The exact body string that will be sent (its UTF-8 bytes are signed). */
  body: string;
  /** Active secrets, newest first; during a rotation both the new and the old one. */
  secrets: readonly string[];
}

/**
 * Signs one delivery attempt and returns its three `webhook-*` headers. Re-sign on each
 * retry: the id stays, the timestamp moves (receivers refuse timestamps older than 5 min).
 * @example
 * const r = await signPayload({ id, timestamp: new Date(), body, secrets: [secret] });
 * if (r.ok) await fetch(url, { method: "POST", headers: r.value, body });
 */
export async function signPayload(
  options: SignOptions,
): Promise<Result<SignatureHeaders, SigningError>> {
  const { id, timestamp, body, secrets } = options;
  if (!MESSAGE_ID.test(id))
    return err({ reason: "invalid-message-id", detail: "expected 1–128 of [A-Za-z0-9_-]" });
  const seconds = toSeconds(timestamp);
  if (seconds === null)
    return err({ reason: "invalid-timestamp", detail: "not a valid date after the epoch" });
  const keys = parseSecrets(secrets);
  if (!keys.ok) return keys;
  const content = encoder.encode(`${id}.${seconds}.${body}`);
  const signatures: string[] = [];
  for (const key of keys.value) {
    const mac = await crypto.subtle.sign("HMAC", await importKey(key, "sign"), content);
    signatures.push(`v1,${encodeBase64(new Uint8Array(mac))}`);
  }
  return ok({
    "webhook-id": id,
    "webhook-timestamp": String(seconds),
    "webhook-signature": signatures.join(" "),
  });
}

// ─── Verification ───

/** What {@link verifySignature} checks. Header names are matched case-insensitively. */
export interface VerifyOptions {
  headers: Headers | Readonly<Record<string, string | undefined>>;
  /** The raw body string as received (not re-serialized JSON). */
  body: string;
  secrets: readonly string[];
  now: Date;
  toleranceSeconds?: number;
}

/**
 * Verifies a Standard Webhooks signature (for our own checks, e.g. the test-event echo; the
 * test suite verifies with the independent `standardwebhooks` package). Succeeds with the
 * index of the secret that matched. Comparison is constant-time (`crypto.subtle.verify`).
 */
export async function verifySignature(
  options: VerifyOptions,
): Promise<Result<{ secretIndex: number }, VerificationError>> {
  const get = headerReader(options.headers);
  const id = get("webhook-id");
  const ts = get("webhook-timestamp");
  const sig = get("webhook-signature");
  if (id === undefined) return err({ reason: "missing-header", header: "webhook-id" });
  if (ts === undefined) return err({ reason: "missing-header", header: "webhook-timestamp" });
  if (sig === undefined) return err({ reason: "missing-header", header: "webhook-signature" });
  if (!/^\d{1,12}$/.test(ts))
    return err({ reason: "invalid-timestamp", detail: "not whole seconds since the epoch" });
  const now = toSeconds(options.now);
  if (now === null)
    return err({ reason: "invalid-timestamp", detail: "`now` is not a valid date" });
  const skew = Number(ts) - now;
  if (Math.abs(skew) > (options.toleranceSeconds ?? TIMESTAMP_TOLERANCE_SECONDS))
    return err({ reason: "timestamp-out-of-tolerance", skewSeconds: skew });
  const keys = parseSecrets(options.secrets);
  if (!keys.ok) return keys;
  const content = encoder.encode(`${id}.${ts}.${options.body}`);
  const candidates = sig
    .split(" ")
    .map((entry) => entry.split(","))
    .filter(([version]) => version === "v1")
    .map(([, value]) => decodeBase64(value ?? ""))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== null && bytes.length === 32);
  for (const [secretIndex, key] of keys.value.entries()) {
    const cryptoKey = await importKey(key, "verify");
    for (const candidate of candidates) {
      if (await crypto.subtle.verify("HMAC", cryptoKey, candidate, content))
        return ok({ secretIndex });
    }
  }
  return err({ reason: "no-matching-signature" });
}

// ─── Helpers ───

function parseSecrets(secrets: readonly string[]): Result<Uint8Array<ArrayBuffer>[], SigningError> {
  if (secrets.length === 0) return err({ reason: "no-secret" });
  if (secrets.length > MAX_ACTIVE_SECRETS)
    return err({ reason: "too-many-secrets", count: secrets.length });
  const keys: Uint8Array<ArrayBuffer>[] = [];
  for (const [index, secret] of secrets.entries()) {
    const key = parseSecret(secret, index);
    if (!key.ok) return key;
    keys.push(key.value);
  }
  return ok(keys);
}

function importKey(key: Uint8Array<ArrayBuffer>, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

function toSeconds(date: Date): number | null {
  const ms = date.getTime();
  return Number.isFinite(ms) && ms >= 0 ? Math.floor(ms / 1000) : null;
}

function headerReader(
  headers: VerifyOptions["headers"],
): (name: keyof SignatureHeaders) => string | undefined {
  if (headers instanceof Headers) return (name) => headers.get(name) ?? undefined;
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => lower.get(name);
}

function fillRandom(bytes: Uint8Array<ArrayBuffer>): void {
  crypto.getRandomValues(bytes);
}
