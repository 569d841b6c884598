/**
 * Limits on what an agent can make the platform send, through the platform Worker's fetch:
 * one redelivery round at a time (409 + Retry-After while a message is pending), test-event
 * quotas per endpoint and per agent (429 + Retry-After), a re-enabled endpoint that keeps its
 * failure streak, the retention sweep of the delivery log, and loopback targets only on the
 * allowed local ports.
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createDb,
  insertWebhookAttempt,
  insertWebhookMessages,
  webhookAttempts,
  webhookEndpoints,
  webhookMessages,
} from "@bouts/db";
import {
  DELIVERY_RETENTION_MS,
  MAX_TESTS_PER_AGENT,
  MAX_TESTS_PER_ENDPOINT,
  sweepWebhooks,
} from "../src/index.ts";
import {
  call,
  callJson,
  consumeOne,
  delivery,
  expectProblem,
  receivedAt,
  recordingQueue,
  register,
  script,
  seedAgents,
  type Agent,
} from "./helpers.ts";

let a: Agent;
let b: Agent;
beforeAll(async () => {
  ({ a, b } = await seedAgents());
});

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

/** Registers an endpoint for `agent` at `path` (unless given) and fans one scored event out to it. */
async function oneMessage(agent: Agent, path: string, given?: { id: string }) {
  const endpoint = given ?? (await register(agent.token, path, ["submission.scored"]));
  const { sent, queue } = recordingQueue();
  await consumeOne(
    {
      v: 1,
      kind: "event",
      eventId: `evt_${path.replaceAll("/", "_")}`,
      type: "submission.scored",
      agentId: agent.id,
      challengeId: "notes-api",
      submissionId: "sub_01",
      data: { score: 82, unrounded: "82.075", fraction: "3283/40", band: "strong", rank: 3 },
    },
    { queue },
  );
  expect(sent.length).toBeGreaterThan(0);
  // The agent's other endpoints got the event too: take this endpoint's message.
  const log = await call(`/v1/webhooks/${endpoint.id}/deliveries`, { token: agent.token });
  const [first] = (await log.json<{ deliveries: { messageId: string }[] }>()).deliveries;
  const messageId = first?.messageId;
  if (!messageId) throw new Error("nothing enqueued");
  return { endpoint, messageId };
}

const redeliver = (agent: Agent, endpointId: string, messageId: string) =>
  call(`/v1/webhooks/${endpointId}/deliveries/${messageId}/redeliver`, {
    method: "POST",
    token: agent.token,
  });

describe("redelivery", () => {
  it("refuses to redeliver a message whose delivery is pending, with Retry-After", async () => {
    const { endpoint, messageId } = await oneMessage(a, "/ab/pending");
    const queued = await redeliver(a, endpoint.id, messageId);
    const problem = await expectProblem(queued, 409);
    expect(problem.type).toBe("urn:bouts:problem:delivery-pending");
    expect(queued.headers.get("Retry-After")).toBe("5");
    // Retrying after a 500: still one round in progress.
    await script("/ab/pending", [{ status: 500 }]);
    expect((await consumeOne(delivery(messageId))).retryMessages).toHaveLength(1);
    const retrying = await redeliver(a, endpoint.id, messageId);
    await expectProblem(retrying, 409);
    expect(Number(retrying.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await receivedAt("/ab/pending")).toHaveLength(1);
  });

  it("starts one round for concurrent redeliveries of a settled message", async () => {
    const { endpoint, messageId } = await oneMessage(a, "/ab/concurrent");
    await consumeOne(delivery(messageId));
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => redeliver(a, endpoint.id, messageId)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 409, 409, 409, 409]);
    // Settled again, it can be redelivered again.
    await consumeOne(delivery(messageId));
    expect((await redeliver(a, endpoint.id, messageId)).status).toBe(202);
  });

  it("redelivers a pending message that has been stuck for longer than any retry delay", async () => {
    const { endpoint, messageId } = await oneMessage(a, "/ab/stuck");
    await createDb(env.DB)
      .update(webhookMessages)
      .set({ updatedAt: Date.now() - 14 * HOUR, createdAt: Date.now() - 14 * HOUR })
      .where(eq(webhookMessages.id, messageId));
    expect((await redeliver(a, endpoint.id, messageId)).status).toBe(202);
  });
});

describe("test events", () => {
  it("allows a quota of test events per endpoint, then answers 429 with Retry-After", async () => {
    const endpoint = await register(b.token, "/ab/test-quota");
    const test = () => call(`/v1/webhooks/${endpoint.id}/test`, { method: "POST", token: b.token });
    for (let i = 0; i < MAX_TESTS_PER_ENDPOINT; i++) expect((await test()).status).toBe(202);
    const refused = await test();
    const problem = await expectProblem(refused, 429);
    expect(problem.type).toBe("urn:bouts:problem:test-quota");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it("caps the test events of all of an agent's endpoints together", async () => {
    const { a: agent } = await seedAgents();
    const endpoints = [];
    for (let i = 0; i < 5; i++) endpoints.push(await register(agent.token, `/ab/agent-quota/${i}`));
    const test = (id: string) =>
      call(`/v1/webhooks/${id}/test`, { method: "POST", token: agent.token });
    let accepted = 0;
    for (const e of endpoints)
      for (let i = 0; i < MAX_TESTS_PER_AGENT / endpoints.length; i++)
        if ((await test(e.id)).status === 202) accepted += 1;
    expect(accepted).toBe(MAX_TESTS_PER_AGENT);
    const extra = await register(agent.token, "/ab/agent-quota/extra");
    const refused = await test(extra.id);
    expect((await expectProblem(refused, 429)).detail).toMatch(/per agent/);
    expect(refused.headers.get("Retry-After")).not.toBeNull();
  });
});

describe("re-enabling", () => {
  it("keeps the failure streak, so a still-dead endpoint is disabled again at its next failure", async () => {
    const { a: agent } = await seedAgents();
    const endpoint = await register(agent.token, "/ab/dead", ["submission.scored"]);
    const now = Date.now();
    await createDb(env.DB)
      .update(webhookEndpoints)
      .set({
        failingSince: now - 6 * DAY,
        consecutiveFailures: 11,
        disabledAt: now - HOUR,
        disabledReason: "failing for 6 days",
      })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const enabled = await call(`/v1/webhooks/${endpoint.id}/enable`, {
      method: "POST",
      token: agent.token,
    });
    const body = await enabled.json<{
      enabled: boolean;
      health: { consecutiveFailures: number };
    }>();
    expect(body).toMatchObject({ enabled: true, health: { consecutiveFailures: 11 } });

    const { messageId } = await oneMessage(agent, "/ab/dead", endpoint);
    await script("/ab/dead", [{ status: 500 }]);
    const result = await consumeOne(delivery(messageId));
    expect(result.retryMessages).toEqual([]);
    const listed = await (
      await call("/v1/webhooks", { token: agent.token })
    ).json<{
      endpoints: { id: string; enabled: boolean; health: { consecutiveFailures: number } }[];
    }>();
    expect(listed.endpoints.find((e) => e.id === endpoint.id)).toMatchObject({
      enabled: false,
      health: { consecutiveFailures: 12 },
    });
  });
});

describe("retention", () => {
  it("prunes messages and attempts older than the retention period, keeping recent ones", async () => {
    const endpoint = await register(b.token, "/ab/retention");
    const db = createDb(env.DB);
    const now = Date.now();
    const old = now - DELIVERY_RETENTION_MS - HOUR;
    const ids = await insertWebhookMessages(db, [
      {
        id: "msg_old_ret",
        endpointId: endpoint.id,
        eventId: "evt_old_ret",
        type: "webhook.test",
        body: "{}",
        createdAt: old,
      },
      {
        id: "msg_new_ret",
        endpointId: endpoint.id,
        eventId: "evt_new_ret",
        type: "webhook.test",
        body: "{}",
        createdAt: now - DAY,
      },
    ]);
    expect(ids).toHaveLength(2);
    for (const messageId of ids)
      await insertWebhookAttempt(db, {
        messageId,
        attempt: 1,
        at: messageId === "msg_old_ret" ? old : now - DAY,
        outcome: "delivered",
        reason: null,
        status: 204,
        latencyMs: 1,
        response: null,
        responseTruncated: false,
      });
    const pruned = await sweepWebhooks(env, now);
    expect(pruned.messages).toBeGreaterThanOrEqual(1);
    const left = await db
      .select({ id: webhookMessages.id })
      .from(webhookMessages)
      .where(eq(webhookMessages.endpointId, endpoint.id))
      .all();
    expect(left.map((m) => m.id)).toEqual(["msg_new_ret"]);
    const attempts = await db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.messageId, "msg_old_ret"))
      .all();
    expect(attempts).toEqual([]);
  });
});

describe("loopback targets (local development switch)", () => {
  const registerAt = (url: string) =>
    callJson("/v1/webhooks", "POST", { url, eventTypes: ["submission.scored"] }, b.token);

  it("refuses the platform's own port and ports outside the local range", async () => {
    // wrangler.toml's WEBHOOKS_LINK_ORIGIN is http://127.0.0.1:8787, the platform itself.
    for (const url of [
      "http://127.0.0.1:8787/v1/agents",
      "http://localhost:8080/run",
      "http://127.0.0.1/x",
      "http://[::1]:5432/",
    ]) {
      const problem = await expectProblem(await registerAt(url), 422);
      expect(problem.rule).toBe("loopback-port");
    }
    expect((await registerAt("http://127.0.0.1:9797/ab/allowed")).status).toBe(201);
  });

  it("refuses to deliver to a stored endpoint whose port is now forbidden", async () => {
    const { endpoint, messageId } = await oneMessage(b, "/ab/moved");
    await createDb(env.DB)
      .update(webhookEndpoints)
      .set({ url: "http://127.0.0.1:8787/ab/moved" })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const result = await consumeOne(delivery(messageId));
    expect(result.explicitAcks).toHaveLength(1);
    expect(await receivedAt("/ab/moved")).toEqual([]);
  });
});
