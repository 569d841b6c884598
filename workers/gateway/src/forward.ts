/**
 * @module gateway-worker/forward
 * One model call through the metering gateway: the agent's request forwarded to the configured
 * upstream with the platform's own key, the answer passed back, and one `gateway_calls` row
 * recorded with what the upstream said it spent. Invariants: the headers sent upstream are built
 * here from nothing (the agent's key and headers never leave); every call that reached the point
 * of being sent is recorded, failed ones included; a JSON answer is read to at most
 * `MAX_RESPONSE_BYTES`; a stream passes through unchanged and is recorded when it ends, inside
 * `waitUntil`; one deadline covers the whole call, a stream's length included.
 */
import { buildGatewayMetadata } from "@bouts/contracts";
import { recordGatewayCall, type Db, type GatewayCallFailure } from "@bouts/db";
import type { GatewayConfig } from "./config.ts";
import { fail } from "./errors.ts";
import { createUsageTap, readCompletion, type CallUsage } from "./usage.ts";

/** The largest JSON answer passed back (a stream has no byte bound, only the deadline). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Who is calling, and where the call is recorded. */
export interface CallContext {
  agentId: string;
  challengeId: string;
  db: Db;
  config: Readonly<GatewayConfig>;
  /** Keeps the Worker alive for the record of a stream (`ExecutionContext.waitUntil`). */
  waitUntil: (work: Promise<unknown>) => void;
}

/** The agent's chat completion: its bytes as sent, and the fields the gateway reads. */
export interface ChatRequest {
  bytes: Uint8Array;
  body: Record<string, unknown> & { model: string; stream?: boolean | undefined };
}

/** The outcome of a call, as recorded. */
interface Outcome {
  status: number | null;
  failure: GatewayCallFailure | null;
  usage: CallUsage | null;
  model: string | null;
  streamed: boolean;
}

/**
 * The headers of the upstream request, built from nothing: the platform's key, and for AI
 * Gateway the metadata that names the caller (docs/gateway.md, "Production: AI Gateway").
 */
export function buildUpstreamHeaders(
  ctx: Pick<CallContext, "agentId" | "challengeId" | "config">,
  stream: boolean,
): Headers {
  const { config } = ctx;
  const headers = new Headers({
    "Content-Type": "application/json",
    Accept: stream ? "text/event-stream" : "application/json",
  });
  if (config.upstreamKey) headers.set("Authorization", `Bearer ${config.upstreamKey}`);
  if (config.kind === "ai-gateway") {
    // At most five entries are kept per request; values are strings, numbers or booleans.
    headers.set("cf-aig-metadata", JSON.stringify(buildGatewayMetadata(ctx)));
    if (config.aigToken) headers.set("cf-aig-authorization", `Bearer ${config.aigToken}`);
  }
  return headers;
}

/** The body sent upstream: the agent's bytes, or, for a stream, with the final usage chunk asked for. */
function buildUpstreamBody(req: ChatRequest): Uint8Array | string {
  if (req.body.stream !== true) return req.bytes;
  const options = req.body["stream_options"];
  return JSON.stringify({
    ...req.body,
    stream_options: {
      ...(typeof options === "object" && options ? options : {}),
      include_usage: true,
    },
  });
}

/** Forwards one chat completion and answers the upstream's answer; records the call. */
export async function forwardChatCompletion(
  ctx: CallContext,
  url: string,
  req: ChatRequest,
): Promise<Response> {
  const id = crypto.randomUUID();
  const startedAt = Date.now();
  const record = (o: Outcome) =>
    recordGatewayCall(ctx.db, {
      id,
      agentId: ctx.agentId,
      challengeId: ctx.challengeId,
      model: o.model ?? req.body.model,
      tokensIn: o.usage?.tokensIn ?? null,
      tokensOut: o.usage?.tokensOut ?? null,
      status: o.status,
      failure: o.failure,
      streamed: o.streamed,
      requestBytes: req.bytes.byteLength,
      startedAt,
      finishedAt: Date.now(),
    });
  const none = { usage: null, model: null };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), ctx.config.timeoutMs);
  const failed = () => (deadline.signal.aborted ? "timeout" : "unreachable");

  let upstream: Response;
  try {
    upstream = await fetch(url, {
      method: "POST",
      headers: buildUpstreamHeaders(ctx, req.body.stream === true),
      body: buildUpstreamBody(req),
      signal: deadline.signal,
    });
  } catch {
    clearTimeout(timer);
    const failure = failed();
    await record({ status: null, failure, streamed: false, ...none });
    return failure === "timeout"
      ? fail({ reason: "upstream-timeout", timeoutMs: ctx.config.timeoutMs })
      : fail({ reason: "upstream-unreachable" });
  }

  const type = upstream.headers.get("Content-Type") ?? "application/json";
  if (upstream.body && /^text\/event-stream\b/i.test(type)) {
    const tap = createUsageTap();
    // Settles when the stream ended (fulfilled), or was cut, timed out or dropped by the client.
    const piped = upstream.body.pipeTo(tap.writable, { signal: deadline.signal }).then(
      () => null,
      () => (deadline.signal.aborted ? ("timeout" as const) : ("interrupted" as const)),
    );
    ctx.waitUntil(
      piped
        .then((failure) => {
          clearTimeout(timer);
          return record({ status: upstream.status, failure, streamed: true, ...tap.seen() });
        })
        .catch((err: unknown) => console.error("gateway: could not record a streamed call", err)),
    );
    return new Response(tap.readable, {
      status: upstream.status,
      headers: { "Content-Type": type, "Cache-Control": "no-cache" },
    });
  }

  const read = await readBounded(upstream, MAX_RESPONSE_BYTES, deadline.signal);
  clearTimeout(timer);
  if (!read.ok) {
    const failure =
      read.why === "oversize" ? "oversize" : deadline.signal.aborted ? "timeout" : "interrupted";
    await record({ status: upstream.status, failure, streamed: false, ...none });
    if (failure === "oversize") fail({ reason: "upstream-oversize", limit: MAX_RESPONSE_BYTES });
    if (failure === "timeout")
      fail({ reason: "upstream-timeout", timeoutMs: ctx.config.timeoutMs });
    fail({ reason: "upstream-interrupted" });
  }
  await record({
    status: upstream.status,
    failure: null,
    streamed: false,
    ...readCompletion(read.bytes),
  });
  const headers = new Headers({ "Content-Type": type });
  const retryAfter = upstream.headers.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  return new Response(read.bytes, { status: upstream.status, headers });
}

/**
 * The whole body of `res`, or why not: over `max` bytes (the read stops there), or cut off (the
 * connection broke, or `signal` aborted: a pending read is raced against it, as some runtimes do
 * not fail it).
 */
async function readBounded(
  res: Response,
  max: number,
  signal: AbortSignal,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; why: "oversize" | "cut" }> {
  if (!res.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new Error("aborted"));
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
  aborted.catch(() => undefined);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      size += value.byteLength;
      if (size > max) return { ok: false, why: "oversize" };
      chunks.push(value);
    }
  } catch {
    return { ok: false, why: "cut" };
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { ok: true, bytes };
}
