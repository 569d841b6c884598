/**
 * @module db/keys
 * API key material. A key reads `bouts_<keyId>_<secret>`: the id (public, the lookup handle)
 * and a 256-bit random secret. Invariants: the secret is shown once and only its SHA-256 is
 * stored; hashes are compared in constant time (crypto.subtle.timingSafeEqual); verifying a
 * presented key does the same work whether or not the key exists.
 */
import type { ApiKeyRow } from "./schema.ts";

const KEY_PATTERN = /^bouts_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

// A hash no secret produces, so unknown key ids cost the same comparison as real ones.
const DUMMY_HASH = "0".repeat(64);

/** The columns of an API key row that verifying a presented key reads. */
export type KeyCredentials = Pick<
  ApiKeyRow,
  "id" | "role" | "agentId" | "operatorId" | "secretHash" | "revokedAt"
>;

/** Whose a verified key is. */
export type KeyOwner =
  | { role: "agent"; agentId: string; keyId: string }
  | { role: "operator"; operatorId: string; keyId: string };

/** A freshly minted key: `token` goes to the caller once, `secretHash` to the database. */
export type MintedKey = { id: string; token: string; secretHash: string };

/** Mints a new random key. */
export async function mintApiKey(): Promise<MintedKey> {
  const id = toHex(crypto.getRandomValues(new Uint8Array(12)));
  const secret = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  return { id, token: `bouts_${id}_${secret}`, secretHash: await sha256Hex(secret) };
}

/** Splits a presented token into id and secret, or null when it is not shaped like a key. */
export function parseApiKey(token: string): { id: string; secret: string } | null {
  const m = KEY_PATTERN.exec(token);
  return m?.[1] && m[2] ? { id: m[1], secret: m[2] } : null;
}

/** Whether `secret` hashes to `expectedHash`, compared in constant time. */
export async function verifySecret(secret: string, expectedHash: string): Promise<boolean> {
  const actual = new TextEncoder().encode(await sha256Hex(secret));
  const expected = new TextEncoder().encode(expectedHash);
  if (actual.byteLength !== expected.byteLength) return false;
  const subtle = crypto.subtle as typeof crypto.subtle & {
    timingSafeEqual?: (a: Uint8Array, b: Uint8Array) => boolean;
  };
  if (subtle.timingSafeEqual) return subtle.timingSafeEqual(actual, expected);
  let diff = 0;
  for (let i = 0; i < actual.byteLength; i++) diff |= (actual[i] ?? 0) ^ (expected[i] ?? 0);
  return diff === 0;
}

/**
 * The owner of a presented bearer token, given the key row found for its id (undefined when
 * the token is not shaped like a key or no row has its id); null unless the secret matches a
 * live key that has an owner. Every path hashes and compares once, so an unknown, malformed
 * or revoked key costs the same work as a valid one. `parsed` spares a caller that already
 * split the token (to look the row up) a second parse.
 */
export async function verifyApiKey(
  token: string,
  row: KeyCredentials | undefined,
  parsed: { secret: string } | null = parseApiKey(token),
): Promise<KeyOwner | null> {
  const matches = await verifySecret(parsed?.secret ?? token, row?.secretHash ?? DUMMY_HASH);
  if (!row || !matches || row.revokedAt !== null) return null;
  if (row.role === "agent" && row.agentId) {
    return { role: "agent", agentId: row.agentId, keyId: row.id };
  }
  if (row.role === "operator" && row.operatorId) {
    return { role: "operator", operatorId: row.operatorId, keyId: row.id };
  }
  return null;
}

/** SHA-256 of a string or bytes, as lower-case hex. */
export async function sha256Hex(data: string | ArrayBuffer | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
