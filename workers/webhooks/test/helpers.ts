/**
 * Test helpers: calls through the platform Worker's fetch, an operator seeded into D1 and
 * agents made through the API, the receiver's control API, and a consumer driver that runs
 * one queue message and returns what the queue was told (ack, retry and its delay).
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { createDb, insertApiKey, insertOperator, mintApiKey } from "@bouts/db";
import { consumeWebhooks, type ConsumeOptions, type WebhookQueueMessage } from "../src/index.ts";
import { CONTROL_ORIGIN, type ReceivedRequest, type ScriptedAnswer } from "./receiver.ts";

/** Sends a request through the platform Worker's fetch handler. */
export function call(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  return exports.default.fetch(new Request(`http://api.test${path}`, { ...init, headers }));
}

/** Sends JSON. */
export function callJson(path: string, method: string, body: unknown, token: string) {
  return call(path, {
    method,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    token,
  });
}

/** Reads a problem+json answer and checks its shape. */
export async function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  const body = await res.json<{ status: number; type: string; detail: string; rule?: string }>();
  expect(body.status).toBe(status);
  return body;
}

/** An operator seeded into D1 and two agents made through the API. */
export async function seedAgents(): Promise<{ a: Agent; b: Agent }> {
  const db = createDb(env.DB);
  const operatorId = crypto.randomUUID();
  const now = Date.now();
  await insertOperator(db, { id: operatorId, name: "ops", createdAt: now });
  const key = await mintApiKey();
  await insertApiKey(db, {
    id: key.id,
    role: "operator",
    agentId: null,
    operatorId,
    secretHash: key.secretHash,
    label: "test",
    createdAt: now,
    revokedAt: null,
  });
  const make = async (name: string): Promise<Agent> => {
    const res = await callJson("/v1/agents", "POST", { name }, key.token);
    expect(res.status).toBe(201);
    const body = await res.json<{ agent: { id: string }; key: { key: string } }>();
    return { id: body.agent.id, token: body.key.key };
  };
  return { a: await make("alpha"), b: await make("beta") };
}
export interface Agent {
  id: string;
  token: string;
}

/** A registered endpoint as the API answers it. */
export interface Registered {
  id: string;
  url: string;
  secret: string;
  eventTypes: string[];
}

/** The receiver's loopback port: inside the default local range (9700–9799). */
export const RECEIVER_PORT = 9797;

/** Registers an endpoint at the receiver path `path`. */
export async function register(
  token: string,
  path: string,
  eventTypes = ["submission.scored", "submission.failed", "leaderboard.overtaken"],
): Promise<Registered> {
  const res = await callJson(
    "/v1/webhooks",
    "POST",
    { url: `http://127.0.0.1:${RECEIVER_PORT}${path}`, eventTypes },
    token,
  );
  expect(res.status).toBe(201);
  return res.json<Registered>();
}

/** Scripts the receiver's answers for `path`. */
export async function script(path: string, answers: ScriptedAnswer[]): Promise<void> {
  const res = await fetch(`${CONTROL_ORIGIN}/script?path=${encodeURIComponent(path)}`, {
    method: "POST",
    body: JSON.stringify(answers),
  });
  expect(res.status).toBe(204);
}

/** What the receiver got at `path`. */
export async function receivedAt(path: string): Promise<ReceivedRequest[]> {
  const res = await fetch(`${CONTROL_ORIGIN}/received?path=${encodeURIComponent(path)}`);
  return res.json<ReceivedRequest[]>();
}

/** A WEBHOOKS stand-in that records what the consumer enqueues. */
export function recordingQueue() {
  const sent: WebhookQueueMessage[] = [];
  const queue = {
    send: (body: WebhookQueueMessage) => {
      sent.push(body);
      return Promise.resolve();
    },
    sendBatch: (msgs: Iterable<{ body: WebhookQueueMessage }>) => {
      for (const m of msgs) sent.push(m.body);
      return Promise.resolve();
    },
  } as unknown as Queue;
  return { sent, queue };
}

/**
 * Runs the consumer on one message (with `attempts`) and returns the queue's verdict plus the
 * `delaySeconds` of each `retry` call (getQueueResult does not report the delay: it is read
 * from a spy on the message's `retry`).
 */
export async function consumeOne(
  body: unknown,
  options: ConsumeOptions & { attempts?: number; queue?: Queue } = {},
) {
  const batch = createMessageBatch("bouts-webhooks", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: options.attempts ?? 1, body },
  ]);
  const retry = vi.spyOn(batch.messages[0]!, "retry");
  const ctx = createExecutionContext();
  const testEnv = { ...env, WEBHOOKS: options.queue ?? env.WEBHOOKS };
  await consumeWebhooks(batch, testEnv, { random: () => 0.5, ...options });
  const result = await getQueueResult(batch, ctx);
  return { ...result, retryDelays: retry.mock.calls.map(([o]) => o?.delaySeconds) };
}

/** A delivery queue message. */
export const delivery = (messageId: string) => ({ v: 1, kind: "delivery", messageId });
