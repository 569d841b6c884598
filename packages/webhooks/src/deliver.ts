/**
 * @module webhooks/deliver
 * One delivery attempt: POST the signed body, classify the response; never throws for anything the
 * receiver or the network does. Invariants: the target is re-validated before every attempt; no
 * redirect is followed (a 3xx is `failed`); one deadline (`timeoutMs`) covers connecting, the head
 * and the body read, at most `maxResponseBytes` (then the stream is cancelled); `fetch` and the
 * clock are injected, and only web-standard APIs are used.
 */
import { parseRetryAfter } from "./retry-schedule.ts";
import type { SignatureHeaders } from "./signing.ts";
import { validateTargetUrl, type LoopbackPortRule, type TargetUrlRule } from "./target-url.ts";

/** Default deadline of one attempt. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default number of response-body bytes kept for the delivery log. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4096;
/** The User-Agent of every delivery. */
export const USER_AGENT = "Bouts-Webhooks/1";

/** Options of {@link deliverWebhook}. */
export interface DeliverOptions {
  fetch: typeof fetch;
  /** A URL previously accepted by `validateTargetUrl` (checked again here). */
  url: string;
  /** The `webhook-*` headers from `signPayload` for this very body and attempt. */
  headers: SignatureHeaders;
  /** The exact string that was signed. */
  body: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Local development only; see `validateTargetUrl`. */
  allowLoopback?: boolean;
  /** The loopback ports allowed with `allowLoopback`; see `validateTargetUrl`. */
  loopbackPorts?: LoopbackPortRule;
  /** The platform's own domains; see `validateTargetUrl`. */
  blockedHosts?: readonly string[];
  /** Milliseconds clock for latency and `Retry-After` dates; defaults to `Date.now`. */
  now?: () => number;
}

/** What the receiver answered, as kept in the delivery log. */
export interface DeliveryResponse {
  status: number;
  /** At most `maxResponseBytes` of the body, decoded as UTF-8 (invalid bytes replaced). */
  body: string;
  /** True when the body was longer than what was read. */
  truncated: boolean;
}

interface Timing {
  latencyMs: number;
}

/** The result of one attempt; `outcome` says what the caller does next. */
export type DeliveryOutcome =
  | ({ outcome: "delivered"; response: DeliveryResponse } & Timing)
  | ({
      outcome: "retry";
      reason: "timeout" | "network-error" | "rate-limited" | "server-error";
      response: DeliveryResponse | null;
      /** From `Retry-After` on 429/503, in seconds, capped; null when absent. */
      retryAfterSeconds: number | null;
      detail: string;
    } & Timing)
  | ({ outcome: "disable"; reason: "gone"; response: DeliveryResponse } & Timing)
  | ({
      outcome: "failed";
      reason: "redirect" | "client-error" | "unexpected-status";
      response: DeliveryResponse;
      /** The `Location` of a redirect, for the log (never followed). */
      location: string | null;
    } & Timing)
  | ({ outcome: "failed"; reason: "invalid-target"; rule: TargetUrlRule; detail: string } & Timing);

/**
 * Sends one signed delivery and classifies the answer: 2xx `delivered`; 408, 429, 5xx,
 * timeouts and network errors `retry`; 410 `disable`; 3xx and other 4xx `failed`.
 * @example
 * const outcome = await deliverWebhook({ fetch, url, headers: signed.value, body });
 * if (outcome.outcome === "retry") message.retry({ delaySeconds: … });
 */
export async function deliverWebhook(options: DeliverOptions): Promise<DeliveryOutcome> {
  const now = options.now ?? Date.now;
  const started = now();
  const latency = () => Math.max(0, now() - started);
  // Re-validated on every attempt, so a stored URL that a rule now forbids is never fetched.
  const target = validateTargetUrl(options.url, {
    allowLoopback: options.allowLoopback,
    loopbackPorts: options.loopbackPorts,
    blockedHosts: options.blockedHosts,
  });
  if (!target.ok)
    return {
      outcome: "failed",
      reason: "invalid-target",
      rule: target.error.reason,
      detail: target.error.message,
      latencyMs: 0,
    };
  const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  // Call fetch unbound: workerd's fetch throws "Illegal invocation" when `this` is our
  // options object, as `options.fetch(...)` would make it.
  const doFetch = options.fetch;
  let res: Response;
  try {
    res = await doFetch(target.value.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        ...options.headers,
      },
      body: options.body,
      redirect: "manual",
      signal,
    });
  } catch (e) {
    const timedOut = signal.aborted;
    return {
      outcome: "retry",
      reason: timedOut ? "timeout" : "network-error",
      response: null,
      retryAfterSeconds: null,
      detail: timedOut ? "no response before the deadline" : describeError(e),
      latencyMs: latency(),
    };
  }
  const response = await readBounded(
    res,
    options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    signal,
  );
  const latencyMs = latency();
  const status = res.status;
  if (status >= 200 && status < 300) return { outcome: "delivered", response, latencyMs };
  if (status === 410) return { outcome: "disable", reason: "gone", response, latencyMs };
  if (status === 429 || status === 408 || status >= 500) {
    const retryAfterSeconds =
      status === 429 || status === 503
        ? parseRetryAfter(res.headers.get("retry-after"), new Date(now()))
        : null;
    return {
      outcome: "retry",
      reason: status === 429 ? "rate-limited" : status === 408 ? "timeout" : "server-error",
      response,
      retryAfterSeconds,
      detail: `HTTP ${status}`,
      latencyMs,
    };
  }
  // Browsers hide a manual redirect as an opaque response with status 0; Workers and Node
  // expose the 3xx itself. Both are redirects and neither is followed.
  if ((status >= 300 && status < 400) || (res.type as string) === "opaqueredirect")
    return {
      outcome: "failed",
      reason: "redirect",
      response,
      location: res.headers.get("location"),
      latencyMs,
    };
  return {
    outcome: "failed",
    reason: status >= 400 && status < 500 ? "client-error" : "unexpected-status",
    response,
    location: null,
    latencyMs,
  };
}

/**
 * Reads the body until more than `max` bytes have arrived (so memory holds at most `max` plus
 * one network chunk), keeps the first `max`, then cancels the stream; never throws.
 */
async function readBounded(
  res: Response,
  max: number,
  signal: AbortSignal,
): Promise<DeliveryResponse> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = res.body?.getReader();
  if (reader) {
    // Some runtimes do not fail a pending read when the fetch signal aborts: race it.
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(new Error("the delivery deadline passed"));
      if (signal.aborted) fail();
      signal.addEventListener("abort", fail, { once: true });
    });
    aborted.catch(() => undefined);
    try {
      while (!truncated) {
        const { done, value } = await Promise.race([reader.read(), aborted]);
        if (done) break;
        const room = max - size;
        if (value.byteLength > room) truncated = true;
        const kept = truncated ? value.subarray(0, room) : value;
        chunks.push(kept);
        size += kept.byteLength;
      }
    } catch {
      truncated = true; // the deadline or the connection ended the read; keep what we have
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return { status: res.status, body: new TextDecoder().decode(bytes), truncated };
}

function describeError(e: unknown): string {
  if (!(e instanceof Error)) return "network error";
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : "";
  return `${e.message}${cause}`.slice(0, 300);
}
