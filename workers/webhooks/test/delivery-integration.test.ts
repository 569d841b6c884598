/**
 * The consumer against the Node-side receiver: fan-out and dedupe, Standard Webhooks
 * signatures checked with the independent `standardwebhooks` package, the retry schedule as
 * `message.retry` delays, Retry-After, redirects, 410, rotation, the test event, the delivery
 * log, redelivery with the same webhook-id, and dead letters: an exhausted delivery reaches the
 * real `bouts-webhooks-dlq` queue and its consumer, which logs each dead message once.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { eventMessage } from "@bouts/contracts";
import { consumeDeadWebhooks } from "../src/index.ts";
import {
  call,
  consumeOne,
  delivery,
  expectProblem,
  receivedAt,
  recordingQueue,
  register,
  script,
  seedAgents,
  type Agent,
  type Registered,
} from "./helpers.ts";

let a: Agent;
let b: Agent;
beforeAll(async () => {
  ({ a, b } = await seedAgents());
});

const scored = (agentId: string, eventId: string) => ({
  v: 1,
  kind: "event",
  eventId,
  type: "submission.scored",
  agentId,
  challengeId: "notes-api",
  submissionId: "sub_01",
  data: {
    score: 82,
    unrounded: "82.075",
    fraction: "3283/40",
    band: "strong",
    judging: {
      panel: "model",
      summary: "Judged by model judges: workers-ai:llama graded code quality.",
    },
    rank: 3,
    iteration: 1,
  },
});

/** Fans `event` out and returns the delivery messages it enqueued. */
async function fanOut(event: unknown): Promise<string[]> {
  const { sent, queue } = recordingQueue();
  const result = await consumeOne(event, { queue });
  expect(result.explicitAcks.length).toBe(1);
  return sent.map((m) => (m.kind === "delivery" ? m.messageId : "not-a-delivery"));
}

/** Registers an endpoint at `path` and fans one scored event out to it; returns its message id. */
async function oneMessage(
  path: string,
  agent: Agent = a,
): Promise<{ endpoint: Registered; messageId: string }> {
  const endpoint = await register(agent.token, path, ["submission.scored"]);
  const ids = await fanOut(scored(agent.id, `evt_${path.replaceAll("/", "_")}`));
  const messageId = ids.at(-1);
  if (!messageId) throw new Error("nothing enqueued");
  return { endpoint, messageId };
}

async function deliveries(endpointId: string, agent: Agent = a) {
  const res = await call(`/v1/webhooks/${endpointId}/deliveries`, { token: agent.token });
  expect(res.status).toBe(200);
  return (
    await res.json<{
      deliveries: {
        messageId: string;
        status: string;
        attempts: {
          outcome: string;
          reason: string | null;
          status: number | null;
          latencyMs: number;
          response: string | null;
          responseTruncated: boolean;
        }[];
      }[];
    }>()
  ).deliveries;
}

describe("fan-out", () => {
  it("stores one message per subscribed endpoint of the recipient and dedupes a repeated event", async () => {
    const { a: c, b: d } = await seedAgents();
    const one = await register(c.token, "/fan/one", ["submission.scored"]);
    const two = await register(c.token, "/fan/two", ["submission.scored", "submission.failed"]);
    await register(c.token, "/fan/other-type", ["submission.failed"]);
    await register(d.token, "/fan/other-agent", ["submission.scored"]);
    const first = await fanOut(scored(c.id, "evt_fan_1"));
    expect(first).toHaveLength(2);
    expect(await fanOut(scored(c.id, "evt_fan_1"))).toEqual([]);
    expect((await deliveries2(c, one.id)).map((m) => m.messageId)).toHaveLength(1);
    expect((await deliveries2(c, two.id)).map((m) => m.messageId)).toHaveLength(1);
  });
});

async function deliveries2(agent: Agent, endpointId: string) {
  const res = await call(`/v1/webhooks/${endpointId}/deliveries`, { token: agent.token });
  return (await res.json<{ deliveries: { messageId: string }[] }>()).deliveries;
}

describe("delivery", () => {
  it("sends a body that the standardwebhooks package verifies, holding only the recipient's data", async () => {
    const { endpoint, messageId } = await oneMessage("/d/signed");
    const result = await consumeOne(delivery(messageId));
    expect(result.explicitAcks).toHaveLength(1);
    const [req] = await receivedAt("/d/signed");
    if (!req) throw new Error("nothing received");
    expect(req.headers["webhook-id"]).toBe(messageId);
    const event = new Webhook(endpoint.secret).verify(req.body, req.headers) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(event.type).toBe("submission.scored");
    expect(event.data).toEqual({
      submissionId: "sub_01",
      challengeId: "notes-api",
      score: {
        rounded: 82,
        unrounded: "82.075",
        fraction: { numerator: "3283", denominator: "40" },
      },
      band: { key: "strong", label: "Strong" },
      judging: {
        panel: "model",
        summary: "Judged by model judges: workers-ai:llama graded code quality.",
      },
      rank: 3,
      breakdownUrl: "http://127.0.0.1:8787/v1/submissions/sub_01/breakdown",
    });
    expect(req.body).not.toContain(a.id);
    // One byte changed: the independent verifier refuses it.
    expect(() =>
      new Webhook(endpoint.secret).verify(req.body.replace("82", "83"), req.headers),
    ).toThrow();
    // A settled message is not sent again by a duplicate queue message.
    expect((await consumeOne(delivery(messageId))).explicitAcks).toHaveLength(1);
    expect(await receivedAt("/d/signed")).toHaveLength(1);
  });

  it("delivers a score whose decimal does not terminate, exactly, as the score role queues it", async () => {
    const { a: c } = await seedAgents();
    const endpoint = await register(c.token, "/d/exact", ["submission.scored"]);
    // What publishScored queues for a score of 9469/120 = 78.908333… graded by the heuristic
    // panel (workers/score/test/publish-integration.test.ts checks the producer's side).
    const summary =
      "Judged by the offline heuristic panel (static analysis, no model): judge-a, judge-b, judge-c graded code quality, deliverables.";
    const message = eventMessage(
      "submission.scored",
      { eventId: "evt_d_exact", agentId: c.id, challengeId: "notes-api", submissionId: "sub_01" },
      {
        score: 79,
        unrounded: "78.908333…",
        fraction: "9469/120",
        band: "strong",
        judging: { panel: "heuristic", summary },
        rank: 1,
        iteration: 1,
      },
    );
    const [messageId] = await fanOut(message);
    await consumeOne(delivery(messageId!));
    const [req] = await receivedAt("/d/exact");
    if (!req) throw new Error("nothing received");
    const event = new Webhook(endpoint.secret).verify(req.body, req.headers) as {
      type: string;
      data: { score: unknown; judging: unknown };
    };
    expect(event.type).toBe("submission.scored");
    expect(event.data.score).toEqual({
      rounded: 79,
      unrounded: "78.908333",
      fraction: { numerator: "9469", denominator: "120" },
    });
    expect(event.data.judging).toEqual({ panel: "heuristic", summary });
  });

  it("retries 5xx on the schedule with the same webhook-id and honours Retry-After", async () => {
    const { messageId } = await oneMessage("/d/retry");
    await script("/d/retry", [
      { status: 500 },
      { status: 502 },
      { status: 503, headers: { "Retry-After": "900" } },
      { status: 200 },
    ]);
    // random() = 0.5: equal jitter picks 3/4 of each step (5 s → 4, 30 s → 23).
    const r1 = await consumeOne(delivery(messageId), { attempts: 1 });
    expect(r1.retryMessages).toHaveLength(1);
    expect(r1.retryDelays).toEqual([4]);
    const r2 = await consumeOne(delivery(messageId), { attempts: 2 });
    expect(r2.retryDelays).toEqual([23]);
    const r3 = await consumeOne(delivery(messageId), { attempts: 3 });
    expect(r3.retryDelays).toEqual([900]);
    const r4 = await consumeOne(delivery(messageId), { attempts: 4 });
    expect(r4.retryMessages).toEqual([]);
    expect(r4.explicitAcks).toHaveLength(1);
    const got = await receivedAt("/d/retry");
    expect(got.map((r) => r.headers["webhook-id"])).toEqual(Array(4).fill(messageId));
  });

  it("does not follow a redirect and logs its Location", async () => {
    const { endpoint, messageId } = await oneMessage("/d/redirect");
    await script("/d/redirect", [
      { status: 302, headers: { Location: "http://127.0.0.1/d/moved" } },
    ]);
    const result = await consumeOne(delivery(messageId));
    expect(result.retryMessages).toEqual([]);
    expect(await receivedAt("/d/moved")).toEqual([]);
    const [log] = await deliveries(endpoint.id);
    expect(log?.status).toBe("failed");
    expect(log?.attempts[0]).toMatchObject({
      outcome: "failed",
      reason: "redirect",
      status: 302,
      response: "redirect to http://127.0.0.1/d/moved",
    });
  });

  it("disables the endpoint on 410, skips its queued messages, and re-enables on request", async () => {
    const { endpoint, messageId } = await oneMessage("/d/gone");
    await fanOut(scored(a.id, "evt_before_gone"));
    const queued = (await deliveries(endpoint.id)).find((m) => m.messageId !== messageId);
    if (!queued) throw new Error("second message missing");
    await script("/d/gone", [{ status: 410 }]);
    expect((await consumeOne(delivery(messageId))).retryMessages).toEqual([]);
    expect((await consumeOne(delivery(queued.messageId))).explicitAcks).toHaveLength(1);
    const skipped = (await deliveries(endpoint.id)).find((m) => m.messageId === queued.messageId);
    expect(skipped?.status).toBe("skipped");
    const listed = await (
      await call("/v1/webhooks", { token: a.token })
    ).json<{
      endpoints: { id: string; enabled: boolean; disabled: { reason: string } | null }[];
    }>();
    const row = listed.endpoints.find((e) => e.id === endpoint.id);
    expect(row?.enabled).toBe(false);
    expect(row?.disabled?.reason).toMatch(/410 Gone/);
    // Nothing new fans out to it, and a queued message is skipped unsent.
    expect(await fanOut(scored(a.id, "evt_after_gone"))).not.toContain(messageId);
    await expectProblem(
      await call(`/v1/webhooks/${endpoint.id}/test`, { method: "POST", token: a.token }),
      409,
    );
    const enabled = await call(`/v1/webhooks/${endpoint.id}/enable`, {
      method: "POST",
      token: a.token,
    });
    expect((await enabled.json<{ enabled: boolean }>()).enabled).toBe(true);
    expect(await receivedAt("/d/gone")).toHaveLength(1);
  });

  it("logs status, latency and a truncated response for each attempt", async () => {
    const { endpoint, messageId } = await oneMessage("/d/log");
    await script("/d/log", [
      { status: 500, body: "x".repeat(5000) },
      { status: 200, body: "ok" },
    ]);
    await consumeOne(delivery(messageId), { attempts: 1 });
    await consumeOne(delivery(messageId), { attempts: 2 });
    const [log] = await deliveries(endpoint.id);
    expect(log?.status).toBe("delivered");
    expect(log?.attempts).toHaveLength(2);
    expect(log?.attempts[0]).toMatchObject({
      outcome: "retry",
      status: 500,
      responseTruncated: true,
    });
    expect(log?.attempts[0]?.response).toHaveLength(4096);
    expect(log?.attempts[1]).toMatchObject({ outcome: "delivered", status: 200, response: "ok" });
    expect(log?.attempts[1]?.latencyMs).toBeGreaterThanOrEqual(0);
  });
});

describe("rotation, test event and redelivery", () => {
  it("signs with both secrets during the overlap, each verifiable on its own", async () => {
    const { endpoint, messageId } = await oneMessage("/r/rotate");
    const res = await call(`/v1/webhooks/${endpoint.id}/rotate`, {
      method: "POST",
      token: a.token,
    });
    expect(res.status).toBe(200);
    const { secret } = await res.json<{ secret: string }>();
    expect(secret).not.toBe(endpoint.secret);
    await consumeOne(delivery(messageId));
    const [req] = await receivedAt("/r/rotate");
    if (!req) throw new Error("nothing received");
    expect(req.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(() => new Webhook(secret).verify(req.body, req.headers)).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(req.body, req.headers)).not.toThrow();
  });

  it("queues and delivers a webhook.test event", async () => {
    const endpoint = await register(a.token, "/r/test", ["submission.failed"]);
    const res = await call(`/v1/webhooks/${endpoint.id}/test`, { method: "POST", token: a.token });
    expect(res.status).toBe(202);
    const { messageId } = await res.json<{ messageId: string }>();
    await consumeOne(delivery(messageId));
    const [req] = await receivedAt("/r/test");
    if (!req) throw new Error("nothing received");
    const event = new Webhook(endpoint.secret).verify(req.body, req.headers) as {
      type: string;
      data: { endpointId: string };
    };
    expect(event.type).toBe("webhook.test");
    expect(event.data.endpointId).toBe(endpoint.id);
  });

  it("redelivers a delivered message with the same webhook-id and body", async () => {
    const { endpoint, messageId } = await oneMessage("/r/redeliver");
    await consumeOne(delivery(messageId));
    const res = await call(`/v1/webhooks/${endpoint.id}/deliveries/${messageId}/redeliver`, {
      method: "POST",
      token: a.token,
    });
    expect(res.status).toBe(202);
    await consumeOne(delivery(messageId));
    const got = await receivedAt("/r/redeliver");
    expect(got).toHaveLength(2);
    expect(got[1]?.headers["webhook-id"]).toBe(messageId);
    expect(got[1]?.body).toBe(got[0]?.body);
    // Another agent cannot redeliver it.
    await expectProblem(
      await call(`/v1/webhooks/${endpoint.id}/deliveries/${messageId}/redeliver`, {
        method: "POST",
        token: b.token,
      }),
      404,
    );
  });
});

/** Runs the dead-letter consumer on `bodies` (one DLQ message each); returns the acked ids. */
async function consumeDead(bodies: unknown[]): Promise<string[]> {
  const batch = createMessageBatch(
    "bouts-webhooks-dlq",
    bodies.map((body, i) => ({ id: `dead-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await consumeDeadWebhooks(batch, env);
  return (await getQueueResult(batch, ctx)).explicitAcks;
}

/** Polls the delivery log until `done` holds for the message (the DLQ consumer runs apart). */
async function logOnceSettled(endpointId: string, messageId: string, done: (m: Log) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const log = (await deliveries(endpointId, c)).find((m) => m.messageId === messageId);
    if (log && done(log)) return log;
    if (Date.now() > deadline) throw new Error(`log never settled: ${JSON.stringify(log)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
type Log = Awaited<ReturnType<typeof deliveries>>[number];
let c: Agent;

describe("dead letters", () => {
  // An agent of its own: an agent has at most 10 endpoints.
  beforeAll(async () => {
    ({ a: c } = await seedAgents());
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("sends an exhausted delivery to the dead-letter queue, whose consumer logs it once, and redelivers it", async () => {
    const { endpoint, messageId } = await oneMessage("/dl/exhausted", c);
    await script("/dl/exhausted", [{ status: 500 }, { status: 200 }]);
    const sent = vi.spyOn(env.WEBHOOKS_DLQ, "send");
    const result = await consumeOne(delivery(messageId), { attempts: 11 });
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(sent.mock.calls.map(([body]) => body)).toEqual([delivery(messageId)]);
    // Marked at once, before the dead letter is consumed.
    const marked = (await deliveries(endpoint.id, c)).find((m) => m.messageId === messageId);
    expect(marked?.status).toBe("dead");
    // The real queue delivers the dead letter to the platform's DLQ consumer.
    const log = await logOnceSettled(endpoint.id, messageId, (m) => m.attempts.length === 2);
    expect(log.status).toBe("dead");
    expect(log.attempts.map((a) => [a.outcome, a.reason])).toEqual([
      ["retry", "server-error"],
      ["dead", "retries-exhausted"],
    ]);
    // A repeated dead letter adds nothing.
    expect(await consumeDead([delivery(messageId)])).toEqual(["dead-0"]);
    expect((await logOnceSettled(endpoint.id, messageId, () => true)).attempts).toHaveLength(2);
    // Manual redelivery still works, with the same webhook-id, and a stale dead letter that
    // arrives before its first attempt does not bury it again.
    const res = await call(`/v1/webhooks/${endpoint.id}/deliveries/${messageId}/redeliver`, {
      method: "POST",
      token: c.token,
    });
    expect(res.status).toBe(202);
    await consumeDead([delivery(messageId)]);
    expect((await consumeOne(delivery(messageId))).explicitAcks).toHaveLength(1);
    const redelivered = await logOnceSettled(endpoint.id, messageId, () => true);
    expect(redelivered.status).toBe("delivered");
    expect(redelivered.attempts.at(-1)?.outcome).toBe("delivered");
    const got = await receivedAt("/dl/exhausted");
    expect(got.map((r) => r.headers["webhook-id"])).toEqual([messageId, messageId]);
  });

  it("ignores a dead letter from before a manual redelivery while that redelivery is retrying", async () => {
    const { endpoint, messageId } = await oneMessage("/dl/stale", c);
    await script("/dl/stale", [{ status: 500 }, { status: 500 }]);
    const firstRound = { ...delivery(messageId), queuedAt: Date.now() - 60_000 };
    await consumeOne(firstRound, { attempts: 11 });
    await logOnceSettled(endpoint.id, messageId, (m) => m.attempts.at(-1)?.outcome === "dead");
    const res = await call(`/v1/webhooks/${endpoint.id}/deliveries/${messageId}/redeliver`, {
      method: "POST",
      token: c.token,
    });
    expect(res.status).toBe(202);
    const secondRound = { ...delivery(messageId), queuedAt: Date.now() };
    expect((await consumeOne(secondRound)).retryMessages).toHaveLength(1);
    // A second copy of the first round's dead letter leaves the retrying redelivery alone.
    await consumeDead([firstRound]);
    const retrying = await logOnceSettled(endpoint.id, messageId, () => true);
    expect(retrying.status).toBe("pending");
    expect(retrying.attempts.map((x) => x.outcome)).toEqual(["retry", "dead", "retry"]);
    // The redelivery's own dead letter buries it.
    await consumeDead([secondRound]);
    const buried = await logOnceSettled(endpoint.id, messageId, () => true);
    expect(buried.status).toBe("dead");
    expect(buried.attempts.map((x) => [x.outcome, x.reason])).toEqual([
      ["retry", "server-error"],
      ["dead", "retries-exhausted"],
      ["retry", "server-error"],
      ["dead", "dead-lettered"],
    ]);
  });

  it("retries an exhausted delivery whose dead-letter send fails, so that the queue dead-letters it", async () => {
    const { endpoint, messageId } = await oneMessage("/dl/send-fails", c);
    await script("/dl/send-fails", [{ status: 503 }]);
    vi.spyOn(env.WEBHOOKS_DLQ, "send").mockRejectedValue(new Error("queue down"));
    const result = await consumeOne(delivery(messageId), { attempts: 11 });
    expect(result.retryMessages).toHaveLength(1);
    expect(result.explicitAcks).toEqual([]);
    // The queue's own dead letter (attempts > max_retries) then meets a message already dead.
    expect(await consumeDead([delivery(messageId)])).toEqual(["dead-0"]);
    const [log] = await deliveries(endpoint.id, c);
    expect(log?.status).toBe("dead");
    expect(log?.attempts.map((x) => x.outcome)).toEqual(["retry", "dead"]);
  });

  it("buries a delivery the queue dead-lettered after consumer faults, once however often it arrives", async () => {
    const { endpoint, messageId } = await oneMessage("/dl/faulted", c);
    expect(await consumeDead([delivery(messageId), delivery(messageId)])).toEqual([
      "dead-0",
      "dead-1",
    ]);
    await consumeDead([delivery(messageId)]);
    const [log] = await deliveries(endpoint.id, c);
    expect(log?.status).toBe("dead");
    expect(log?.attempts).toEqual([
      expect.objectContaining({ outcome: "dead", reason: "dead-lettered", status: null }),
    ]);
    // A duplicate delivery message of a dead message is acked unsent.
    expect((await consumeOne(delivery(messageId))).explicitAcks).toHaveLength(1);
    expect(await receivedAt("/dl/faulted")).toEqual([]);
  });

  it("leaves a settled message as it is and acks events, malformed and unknown dead letters", async () => {
    const { endpoint, messageId } = await oneMessage("/dl/settled", c);
    await consumeOne(delivery(messageId));
    expect(
      await consumeDead([
        delivery(messageId),
        delivery("msg_missing"),
        scored(c.id, "evt_dead_event"),
        { not: "a message" },
      ]),
    ).toEqual(["dead-0", "dead-1", "dead-2", "dead-3"]);
    const [log] = await deliveries(endpoint.id, c);
    expect(log?.status).toBe("delivered");
    expect(log?.attempts.map((x) => x.outcome)).toEqual(["delivered"]);
  });

  it("retries a dead letter when the database fails", async () => {
    const { messageId } = await oneMessage("/dl/db-down", c);
    vi.spyOn(env.DB, "prepare").mockImplementation(() => {
      throw new Error("D1 down");
    });
    const batch = createMessageBatch("bouts-webhooks-dlq", [
      { id: "dead-db", timestamp: new Date(), attempts: 1, body: delivery(messageId) },
    ]);
    const ctx = createExecutionContext();
    await consumeDeadWebhooks(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["dead-db"]);
    expect(result.explicitAcks).toEqual([]);
  });
});
