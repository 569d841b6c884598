/**
 * @module db/keys
 * API key material. A key reads `bouts_<keyId>_<secret>`: the id (public, the lookup handle)
 * and a 256-bit random secret. Invariants: the secret is shown once and only its SHA-256 is
 * stored; hashes are compared in constant time (crypto.subtle.timingSafeEqual).
 */

const KEY_PATTERN = /^bouts_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

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
