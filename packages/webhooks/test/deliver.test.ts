// Deliveries against a real local receiver (node:http on 127.0.0.1, random port), through
// Node's own fetch. Signatures are verified at the receiver with `standardwebhooks`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  buildWebhookTestEvent,
  createSecret,
  deliverWebhook,
  serializeEvent,
  signPayload,
  type DeliverOptions,
} from "../src/index.ts";

const SECRET = createSecret();

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const received: Received[] = [];
const routes = new Map<string, Handler>();
const streams: { finished: boolean; closed: boolean; written: number }[] = [];
let base = "";

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
    const handler = routes.get(req.url ?? "") ?? ((_, r) => r.writeHead(404).end("no route"));
    handler(req, res);
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  received.length = 0;
  streams.length = 0;
});

function reply(status: number, body = "", headers: Record<string, string> = {}): Handler {
  return (_req, res) => res.writeHead(status, headers).end(body);
}
routes.set("/ok", reply(200, '{"received":true}', { "content-type": "application/json" }));
routes.set("/boom", reply(500, "internal error"));
routes.set("/busy", reply(429, "slow down", { "retry-after": "120" }));
routes.set("/maintenance", reply(503, "", { "retry-after": "Sun, 01 Mar 2026 12:10:00 GMT" }));
routes.set("/gone", reply(410, "endpoint removed"));
routes.set("/missing", reply(404, "not found"));
routes.set("/request-timeout", reply(408));
routes.set("/moved", reply(301, "", { location: "/redirect-target" }));
routes.set("/redirect-target", reply(200, "should never be reached"));
routes.set("/slow", (_req, res) => {
  const timer = setTimeout(() => res.writeHead(200).end("late"), 2000);
  res.on("close", () => clearTimeout(timer));
});
routes.set("/slow-body", (_req, res) => {
  res.writeHead(200);
  res.write("start ");
  const timer = setTimeout(() => res.end("end"), 2000);
  res.on("close", () => clearTimeout(timer));
});
routes.set("/huge", (_req, res) => {
  // 64 MiB in 64 KiB chunks, respecting back-pressure: if the client reads only the cap and
  // cancels, the stream closes long before it finishes.
  const state = { finished: false, closed: false, written: 0 };
  streams.push(state);
  const chunk = Buffer.alloc(64 * 1024, "x");
  res.writeHead(200, { "content-type": "text/plain" });
  res.on("close", () => (state.closed = true));
  const pump = () => {
    while (state.written < 64 * 1024 * 1024 && !res.destroyed) {
      state.written += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end(() => (state.finished = true));
  };
  pump();
});

async function send(path: string, over: Partial<DeliverOptions> = {}, id = "msg_test1") {
  const event = buildWebhookTestEvent("ep_1", new Date());
  if (!event.ok) throw new Error("event");
  const body = serializeEvent(event.value);
  const signed = await signPayload({ id, timestamp: new Date(), body, secrets: [SECRET] });
  if (!signed.ok) throw new Error(signed.error.reason);
  const outcome = await deliverWebhook({
    fetch,
    url: `${base}${path}`,
    headers: signed.value,
    body,
    allowLoopback: true,
    timeoutMs: 10_000, // the deadline tests set their own
    ...over,
  });
  return { outcome, body };
}

describe("deliverWebhook", () => {
  it("delivers a 2xx, and the bytes received verify with standardwebhooks", async () => {
    const { outcome, body } = await send("/ok");
    expect(outcome).toMatchObject({
      outcome: "delivered",
      response: { status: 200, body: '{"received":true}', truncated: false },
    });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);
    const req = received[0]!;
    expect(req.body.equals(Buffer.from(body, "utf8"))).toBe(true);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toBe("Bouts-Webhooks/1");
    const headers = {
      "webhook-id": String(req.headers["webhook-id"]),
      "webhook-timestamp": String(req.headers["webhook-timestamp"]),
      "webhook-signature": String(req.headers["webhook-signature"]),
    };
    expect(new Webhook(SECRET).verify(req.body.toString("utf8"), headers)).toMatchObject({
      type: "webhook.test",
    });
  });

  it("retries a 500", async () => {
    const { outcome } = await send("/boom");
    expect(outcome).toMatchObject({
      outcome: "retry",
      reason: "server-error",
      retryAfterSeconds: null,
      response: { status: 500, body: "internal error" },
    });
  });

  it("retries a 429 and reads Retry-After in seconds", async () => {
    const { outcome } = await send("/busy");
    expect(outcome).toMatchObject({
      outcome: "retry",
      reason: "rate-limited",
      retryAfterSeconds: 120,
    });
  });

  it("reads a Retry-After date on 503 against the injected clock", async () => {
    const now = () => Date.parse("2026-03-01T12:00:00Z");
    const { outcome } = await send("/maintenance", { now });
    expect(outcome).toMatchObject({
      outcome: "retry",
      reason: "server-error",
      retryAfterSeconds: 600,
    });
  });

  it("retries a 408", async () => {
    const { outcome } = await send("/request-timeout");
    expect(outcome).toMatchObject({ outcome: "retry", reason: "timeout" });
  });

  it("disables on 410 Gone", async () => {
    const { outcome } = await send("/gone");
    expect(outcome).toMatchObject({
      outcome: "disable",
      reason: "gone",
      response: { status: 410, body: "endpoint removed" },
    });
  });

  it("fails other 4xx without retrying", async () => {
    const { outcome } = await send("/missing");
    expect(outcome).toMatchObject({
      outcome: "failed",
      reason: "client-error",
      response: { status: 404 },
    });
  });

  it("fails a 301 and never follows it", async () => {
    const { outcome } = await send("/moved");
    expect(outcome).toMatchObject({
      outcome: "failed",
      reason: "redirect",
      location: "/redirect-target",
      response: { status: 301 },
    });
    expect(received.map((r) => r.path)).toEqual(["/moved"]);
  });

  it("retries after the timeout when the receiver is slow to answer", async () => {
    const { outcome } = await send("/slow", { timeoutMs: 200 });
    expect(outcome).toMatchObject({ outcome: "retry", reason: "timeout", response: null });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(150);
    expect(outcome.latencyMs).toBeLessThan(1500);
  });

  it("keeps the status when the body outlives the deadline", async () => {
    const { outcome } = await send("/slow-body", { timeoutMs: 300 });
    expect(outcome).toMatchObject({
      outcome: "delivered",
      response: { status: 200, body: "start ", truncated: true },
    });
    expect(outcome.latencyMs).toBeLessThan(1500);
  });

  it("reads only the capped part of a huge response and cancels the rest", async () => {
    const { outcome } = await send("/huge", { maxResponseBytes: 1000, timeoutMs: 5000 });
    expect(outcome).toMatchObject({ outcome: "delivered", response: { truncated: true } });
    if (outcome.outcome !== "delivered") return;
    expect(outcome.response.body).toBe("x".repeat(1000));
    await expect.poll(() => streams[0]?.closed, { timeout: 2000 }).toBe(true);
    expect(streams[0]!.finished).toBe(false);
    expect(streams[0]!.written).toBeLessThan(16 * 1024 * 1024);
  });

  it("calls fetch unbound, as workerd's fetch requires", async () => {
    function strictFetch(this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      return fetch(input, init);
    }
    const { outcome } = await send("/ok", { fetch: strictFetch });
    expect(outcome.outcome).toBe("delivered");
  });

  it("retries a network error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { outcome } = await send("", { url: `http://127.0.0.1:${port}/` });
    expect(outcome).toMatchObject({ outcome: "retry", reason: "network-error", response: null });
  });

  it("refuses a target the URL rules forbid without fetching it", async () => {
    let called = false;
    const spy: typeof fetch = () => {
      called = true;
      return Promise.resolve(new Response("x"));
    };
    const { outcome } = await send("", { fetch: spy, url: "https://169.254.169.254/latest" });
    expect(outcome).toMatchObject({
      outcome: "failed",
      reason: "invalid-target",
      rule: "metadata",
    });
    const local = await send("/ok", { fetch: spy, allowLoopback: false });
    expect(local.outcome).toMatchObject({ outcome: "failed", rule: "loopback" });
    expect(called).toBe(false);
  });

  it("keeps the webhook-id across a retry so the receiver can dedupe", async () => {
    const first = await send("/boom", {}, "msg_same");
    expect(first.outcome.outcome).toBe("retry");
    const second = await send("/ok", {}, "msg_same");
    expect(second.outcome.outcome).toBe("delivered");
    // Each attempt is re-signed (fresh timestamp) under the same id: both verify, and a
    // receiver keyed on webhook-id processes the message once.
    expect(received.map((r) => r.headers["webhook-id"])).toEqual(["msg_same", "msg_same"]);
    for (const r of received) {
      const headers = {
        "webhook-id": String(r.headers["webhook-id"]),
        "webhook-timestamp": String(r.headers["webhook-timestamp"]),
        "webhook-signature": String(r.headers["webhook-signature"]),
      };
      expect(() => new Webhook(SECRET).verify(r.body.toString("utf8"), headers)).not.toThrow();
    }
  });
});
