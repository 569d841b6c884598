/**
 * @module adversarial/draw
 * Where the deterministic generator's draw gets its randomness: a key the platform holds, never
 * the submission. The platform derives a per-bundle draw key from its secret
 * (`deriveBundleDrawKey`, the score role); the runner turns that key into the run's draw seed
 * (`deriveDrawSeed`). Invariants: the seed is a function of (secret, bundle sha256) only, so the
 * same bundle draws the same base tests for every submission, however it is packed and whatever
 * its comments or string literals say; another secret or another bundle version draws again;
 * WebCrypto only (one module serves workerd and Node), nothing thrown for well-formed input.
 */

/** Tags hashed into each derivation: a change of scheme is a change of every key. */
export const DRAW_KEY_VERSION = "bouts-draw-key/v1";
export const DRAW_SEED_VERSION = "bouts-draw/v1";

/**
 * The key a run without a platform key draws with (the runner CLI, local runs, tests that do not
 * pass one). Public, so such draws are reproducible by anyone; the platform never uses it.
 */
export const UNKEYED_DRAW_KEY = "0".repeat(64);

const SHA256_HEX = /^[0-9a-f]{64}$/;
const encoder = new TextEncoder();

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(s: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return out;
}

async function hmacHex(key: Uint8Array, message: string): Promise<string> {
  const k = await crypto.subtle.importKey(
    "raw",
    new Uint8Array(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", k, encoder.encode(message)));
}

/** True for a lower-case hex sha256 / HMAC-SHA256 value (64 characters). */
export function isDrawHex(s: unknown): s is string {
  return typeof s === "string" && SHA256_HEX.test(s);
}

/**
 * The platform's draw key for one challenge bundle: HMAC-SHA256(secret, `bouts-draw-key/v1\n` +
 * bundle sha256), hex. Sent to the runner with each run; the secret itself never leaves the
 * platform. Throws only for a malformed bundle hash or an empty secret (caller bugs).
 * @example await deriveBundleDrawKey(env.GENERATION_SECRET, bundleSha256) // "9c…" (64 hex)
 */
export async function deriveBundleDrawKey(secret: string, bundleSha256: string): Promise<string> {
  if (typeof secret !== "string" || secret.length === 0)
    throw new Error("deriveBundleDrawKey: the secret is empty");
  if (!isDrawHex(bundleSha256)) throw new Error("deriveBundleDrawKey: bad bundle sha256");
  return hmacHex(encoder.encode(secret), `${DRAW_KEY_VERSION}\n${bundleSha256}`);
}

/**
 * The seed of one run's draw: HMAC-SHA256(draw key, `bouts-draw/v1\n` + bundle sha256), hex.
 * The runner computes it from the key the platform sent and the bundle it prepared itself, so a
 * key meant for another bundle draws differently rather than reusing that bundle's draw.
 * @example await deriveDrawSeed(drawKey, challenge.sha256) // "41…" (64 hex)
 */
export async function deriveDrawSeed(drawKey: string, bundleSha256: string): Promise<string> {
  if (!isDrawHex(drawKey)) throw new Error("deriveDrawSeed: the draw key is not 64 hex");
  if (!isDrawHex(bundleSha256)) throw new Error("deriveDrawSeed: bad bundle sha256");
  return hmacHex(fromHex(drawKey), `${DRAW_SEED_VERSION}\n${bundleSha256}`);
}
