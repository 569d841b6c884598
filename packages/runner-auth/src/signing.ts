/**
 * @module runner-auth/signing
 * HMAC-SHA256 signatures of requests to the runner over method, path and query, a timestamp, a
 * nonce and the body's SHA-256 (docs/runner.md, "Authentication"). Invariants: WebCrypto only
 * (workerd and Node alike); comparison is constant-time (`crypto.subtle.verify`); no clock and
 * no randomness of its own: callers pass `now` and the nonce.
 */
import { err, ok, type Result } from "@bouts/result";

/** The headers that carry a signature (lower-case, as `Headers` reports them). */
export const RUNNER_AUTH_HEADERS = {
  timestamp: "x-bouts-timestamp",
  nonce: "x-bouts-nonce",
  signature: "x-bouts-signature",
} as const;
/** How far a request's timestamp may be from the runner's clock, either way. */
export const SKEW_WINDOW_SECONDS = 300;
/** The shortest accepted secret, in characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_SECRET_LENGTH = 32;
/** The first line of every signed string: the scheme and its version. */
const SCHEME = "BOUTS-RUNNER-HMAC-SHA256-V1";
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const SIGNATURE = /^v1=([0-9a-f]{64})$/;
const encoder = new TextEncoder();

/** The three signature headers of one request. */
export interface RunnerSignatureHeaders {
  "x-bouts-timestamp": string;
  "x-bouts-nonce": string;
  "x-bouts-signature": string;
}

/** Why a request could not be signed, or its signature was refused. */
export type RunnerAuthError =
  | { reason: "invalid-secret"; detail: string }
  | { reason: "missing-header"; header: string }
  | { reason: "invalid-header"; header: string; detail: string }
  | { reason: "timestamp-out-of-tolerance"; skewSeconds: number; windowSeconds: number }
  | { reason: "bad-signature" }
  | { reason: "replayed" };

/** What is signed: the request as the runner will see it. */
export interface SignedRequest {
  method: string;
  /** Path and query, e.g. `/v1/runs` or `/v1/runs?x=1` (a proxy must pass it unchanged). */
  path: string;
  /** The exact body bytes sent (empty for none). */
  body: Uint8Array<ArrayBuffer>;
}

/**
 * Signs a request; send the three headers with exactly these body bytes.
 * @example
 * const h = await signRunnerRequest({ method: "POST", path: "/v1/runs", body, secret,
 *   now: new Date(), nonce: crypto.randomUUID() });
 */
export async function signRunnerRequest(
  options: SignedRequest & { secret: string; now: Date; nonce: string },
): Promise<Result<RunnerSignatureHeaders, RunnerAuthError>> {
  const secret = checkSecret(options.secret);
  if (!secret.ok) return secret;
  if (!NONCE.test(options.nonce))
    return err({ reason: "invalid-header", header: RUNNER_AUTH_HEADERS.nonce, detail: NONCE_RULE });
  const timestamp = String(Math.floor(options.now.getTime() / 1000));
  const content = await buildSignedString(options, timestamp, options.nonce);
  const key = await importKey(options.secret, "sign");
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, content));
  return ok({
    "x-bouts-timestamp": timestamp,
    "x-bouts-nonce": options.nonce,
    "x-bouts-signature": `v1=${toHex(mac)}`,
  });
}

const NONCE_RULE = "16–128 characters of [A-Za-z0-9_-]";

/** Checks a shared secret's shape (length only: any characters may be key material). */
export function checkSecret(secret: string): Result<string, RunnerAuthError> {
  return secret.length >= MIN_SECRET_LENGTH
    ? ok(secret)
    : err({
        reason: "invalid-secret",
        detail: `${secret.length} characters; at least ${MIN_SECRET_LENGTH} are required`,
      });
}

/** The signature headers of a request, read and checked for shape and freshness. */
export interface SignatureClaim {
  timestamp: number;
  nonce: string;
  mac: Uint8Array<ArrayBuffer>;
}

/**
 * Reads the signature headers and checks their shape and the clock skew, without the body: a
 * request refused here costs the runner no body read.
 */
export function readSignatureHeaders(
  headers: Headers,
  now: Date,
  windowSeconds = SKEW_WINDOW_SECONDS,
): Result<SignatureClaim, RunnerAuthError> {
  const values: Record<string, string> = {};
  for (const header of Object.values(RUNNER_AUTH_HEADERS)) {
    const v = headers.get(header);
    if (v === null) return err({ reason: "missing-header", header });
    values[header] = v;
  }
  const ts = values[RUNNER_AUTH_HEADERS.timestamp]!;
  if (!/^\d{1,12}$/.test(ts))
    return err({
      reason: "invalid-header",
      header: RUNNER_AUTH_HEADERS.timestamp,
      detail: "not whole seconds since the epoch",
    });
  const skewSeconds = Number(ts) - Math.floor(now.getTime() / 1000);
  if (Math.abs(skewSeconds) > windowSeconds)
    return err({ reason: "timestamp-out-of-tolerance", skewSeconds, windowSeconds });
  const nonce = values[RUNNER_AUTH_HEADERS.nonce]!;
  if (!NONCE.test(nonce))
    return err({ reason: "invalid-header", header: RUNNER_AUTH_HEADERS.nonce, detail: NONCE_RULE });
  const sig = SIGNATURE.exec(values[RUNNER_AUTH_HEADERS.signature]!);
  if (!sig)
    return err({
      reason: "invalid-header",
      header: RUNNER_AUTH_HEADERS.signature,
      detail: "expected v1=<64 lower-case hex digits>",
    });
  return ok({ timestamp: Number(ts), nonce, mac: fromHex(sig[1]!) });
}

/**
 * Verifies a request's signature over its method, path, timestamp, nonce and body. The claim
 * comes from {@link readSignatureHeaders}; a replay guard, when given, is consulted only once the
 * signature holds, so unsigned traffic never fills it.
 */
export async function verifyRunnerRequest(
  options: SignedRequest & {
    claim: SignatureClaim;
    secret: string;
    replay?: ReplayGuard;
    now: Date;
  },
): Promise<Result<{ nonce: string }, RunnerAuthError>> {
  const secret = checkSecret(options.secret);
  if (!secret.ok) return secret;
  const { claim } = options;
  const content = await buildSignedString(options, String(claim.timestamp), claim.nonce);
  const key = await importKey(options.secret, "verify");
  if (!(await crypto.subtle.verify("HMAC", key, claim.mac, content)))
    return err({ reason: "bad-signature" });
  if (options.replay && !options.replay.claim(claim.nonce, claim.timestamp, options.now))
    return err({ reason: "replayed" });
  return ok({ nonce: claim.nonce });
}

/**
 * The whole check of one received request: headers and skew first (no body read), then the
 * signature over the body `readBody` yields, then the replay guard.
 */
export async function authenticateRunnerRequest(options: {
  method: string;
  path: string;
  headers: Headers;
  readBody: () => Promise<Uint8Array<ArrayBuffer>>;
  secret: string;
  now: Date;
  replay?: ReplayGuard;
  windowSeconds?: number;
}): Promise<Result<{ nonce: string }, RunnerAuthError>> {
  const claim = readSignatureHeaders(options.headers, options.now, options.windowSeconds);
  if (!claim.ok) return claim;
  return verifyRunnerRequest({
    method: options.method,
    path: options.path,
    body: await options.readBody(),
    claim: claim.value,
    secret: options.secret,
    now: options.now,
    ...(options.replay ? { replay: options.replay } : {}),
  });
}

/** One sentence for a problem's `detail`: what was wrong, and what to check. */
export function describeRunnerAuthError(e: RunnerAuthError): string {
  switch (e.reason) {
    case "invalid-secret":
      return `RUNNER_SHARED_SECRET is unusable: ${e.detail}`;
    case "missing-header":
      return `the request is not signed: no ${e.header} header (sign it with RUNNER_SHARED_SECRET)`;
    case "invalid-header":
      return `the ${e.header} header is malformed: ${e.detail}`;
    case "timestamp-out-of-tolerance":
      return `the request's timestamp is ${e.skewSeconds} s from the runner's clock, outside the ±${e.windowSeconds} s window: check both clocks (NTP)`;
    case "bad-signature":
      return "the signature does not match: the secret differs from the runner's RUNNER_SHARED_SECRET, or the request was altered after signing";
    case "replayed":
      return "this signed request (its nonce) was already used: a replay is refused";
  }
}

// ─── Replay guard ───

/** Remembers the nonces of verified requests until their timestamp leaves the window. */
export interface ReplayGuard {
  /** Records `nonce`; false when it was already seen within the window. */
  claim(nonce: string, timestampSeconds: number, now: Date): boolean;
  /** Nonces remembered now (for tests and health figures). */
  readonly size: number;
}

/**
 * Creates an in-memory replay guard. A nonce is kept until its timestamp is `windowSeconds`
 * in the past, after which the skew check refuses the request anyway; expired entries are
 * dropped on every claim, so memory is bounded by the signed requests of one window.
 */
export function createReplayGuard(windowSeconds = SKEW_WINDOW_SECONDS): ReplayGuard {
  const seen = new Map<string, number>();
  return {
    claim(nonce, timestampSeconds, now) {
      const nowSeconds = Math.floor(now.getTime() / 1000);
      for (const [n, expires] of seen) if (expires < nowSeconds) seen.delete(n);
      if (seen.has(nonce)) return false;
      seen.set(nonce, timestampSeconds + windowSeconds);
      return true;
    },
    get size() {
      return seen.size;
    },
  };
}

// ─── Helpers ───

/** The bytes under the MAC: the scheme, method, path, timestamp, nonce and body digest, one a line. */
async function buildSignedString(
  req: SignedRequest,
  timestamp: string,
  nonce: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", req.body));
  const text = [SCHEME, req.method.toUpperCase(), req.path, timestamp, nonce, toHex(digest)];
  return new Uint8Array(encoder.encode(text.join("\n")));
}

function importKey(secret: string, usage: "sign" | "verify") {
  return crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [usage],
  );
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
