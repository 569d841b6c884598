/**
 * @module webhooks-worker/routes/endpoints
 * Agent routes for webhook endpoints: register, list, delete, rotate, test, delivery log,
 * redeliver, re-enable. Invariants: every route needs an agent key and sees only the
 * caller's endpoints (another agent's id answers the same 404 as a missing one); a secret
 * appears in exactly one response, the one that created it. Nothing here multiplies outbound
 * requests without bound: a message is redelivered only once its round has settled (one
 * round at a time), and test events have a quota per endpoint and per agent.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, agentIdOf, agentOnly, type Principal } from "@bouts/auth";
import { deliveryMessage, SUBSCRIBABLE_EVENT_TYPES } from "@bouts/contracts";
import {
  countWebhookTests,
  createDb,
  deleteWebhookEndpoint,
  enableWebhookEndpoint,
  findAgentWebhookEndpoint,
  findLatestWebhookAttempt,
  findWebhookMessage,
  insertWebhookEndpointWithinCap,
  insertWebhookTestMessageWithinQuota,
  listAgentWebhookEndpoints,
  listWebhookDeliveries,
  reopenWebhookMessage,
  updateWebhookSecrets,
  type Db,
  type StoredWebhookSecret,
  type WebhookEndpointRow,
} from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import {
  buildWebhookTestEvent,
  createMessageId,
  createSecret,
  MAX_ACTIVE_SECRETS,
  MAX_RETRY_DELAY_SECONDS,
  RETRY_STEPS_SECONDS,
  serializeEvent,
  validateTargetUrl,
} from "@bouts/webhooks";
import { resolveTargetOptions } from "../config.ts";
import { enqueueStoredMessages } from "../consumer.ts";
import { fail } from "../errors.ts";
import type { WebhooksEnv } from "../types.ts";
import {
  Delivery,
  Endpoint,
  EndpointId,
  endpointToWire,
  MessageId,
  RegisterBody,
} from "./endpoint-schemas.ts";

/** How long a replaced secret keeps signing after a rotation (24 h). */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** Endpoints per agent. */
export const MAX_ENDPOINTS_PER_AGENT = 10;
/** The window of the test-event quotas (1 h). */
export const TEST_QUOTA_WINDOW_MS = 3600 * 1000;
/** Test events per endpoint per window. */
export const MAX_TESTS_PER_ENDPOINT = 5;
/** Test events per agent (all its endpoints) per window. */
export const MAX_TESTS_PER_AGENT = 20;
/**
 * A pending message with no attempt for this long is stuck, not retrying (no delay of the
 * schedule exceeds 12 h), so it may be redelivered: 13 h.
 */
export const STUCK_PENDING_MS = (MAX_RETRY_DELAY_SECONDS + 3600) * 1000;
export { SUBSCRIBABLE_EVENT_TYPES };

// ─── Helpers ───

const security = SECURITY.agent;
const tags = ["webhooks"];
const AGENT = ACCESS_PROBLEMS.agent;

async function ownEndpoint(db: Db, agentId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await findAgentWebhookEndpoint(db, agentId, id);
  if (!row) fail({ reason: "not-found", resource: "webhook endpoint" });
  return row;
}

/** What a route handler behind `agentOnly` reads its caller and database from. */
interface AgentRouteContext {
  env: { DB: D1Database };
  var: { readonly principal: Principal };
}

/** A database handle, the calling agent and its endpoint `id` (a 404 for anyone else's). */
async function openOwnEndpoint(c: AgentRouteContext, id: string) {
  const db = createDb(c.env.DB);
  const agentId = agentIdOf(c.var.principal);
  return { db, agentId, row: await ownEndpoint(db, agentId, id) };
}

function requireEnabled(row: WebhookEndpointRow): void {
  if (row.disabledAt !== null)
    fail({
      reason: "endpoint-disabled",
      detail: `The endpoint is disabled (${row.disabledReason ?? "no reason"}); re-enable it first.`,
    });
}

/**
 * Refuses a test event once the endpoint's or the agent's quota for the window is spent. The
 * answer only: the limit itself is the conditional insert of the message
 * (`insertWebhookTestMessageWithinQuota`); this names the quota and when a slot frees.
 */
async function refuseTestQuota(
  db: Db,
  agentId: string,
  endpointId: string,
  now: number,
): Promise<never> {
  const since = now - TEST_QUOTA_WINDOW_MS;
  const quotas = [
    ["endpoint", MAX_TESTS_PER_ENDPOINT, await countWebhookTests(db, { endpointId }, since)],
    ["agent", MAX_TESTS_PER_AGENT, await countWebhookTests(db, { agentId }, since)],
  ] as const;
  for (const [scope, limit, recent] of quotas) {
    if (recent.count < limit) continue;
    // A slot frees when the oldest test of the window leaves it.
    const freeAt = (recent.oldestAt ?? now) + TEST_QUOTA_WINDOW_MS;
    fail({
      reason: "test-quota",
      scope,
      limit,
      windowSeconds: TEST_QUOTA_WINDOW_MS / 1000,
      retryAfterSeconds: Math.ceil((freeAt - now) / 1000),
    });
  }
  // A slot freed between the insert and this read: the client may try again at once.
  fail({
    reason: "test-quota",
    scope: "endpoint",
    limit: MAX_TESTS_PER_ENDPOINT,
    windowSeconds: TEST_QUOTA_WINDOW_MS / 1000,
    retryAfterSeconds: 1,
  });
}

/**
 * When the pending round's next attempt should have run (s from `now`): the last attempt plus
 * its whole schedule step, or one first step when none was made yet.
 */
function estimateNextAttempt(latest: { attempt: number; at: number } | undefined, now: number) {
  const first = RETRY_STEPS_SECONDS[0] ?? 5;
  if (!latest) return first;
  const step = RETRY_STEPS_SECONDS[latest.attempt - 1] ?? MAX_RETRY_DELAY_SECONDS;
  return Math.max(first, Math.ceil((latest.at + step * 1000 - now) / 1000));
}

/** Random endpoint id: `wh_` + 16 random bytes, base64url. */
function createEndpointId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return (
    "wh_" +
    btoa(String.fromCharCode(...bytes))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
  );
}

// ─── The actions (the routes below and the MCP tools call these) ───

/** Registers an endpoint for the calling agent; the answer carries its secret, once. */
export async function registerEndpoint(
  env: Env,
  principal: Principal,
  body: z.infer<typeof RegisterBody>,
): Promise<z.infer<typeof Endpoint> & { secret: string }> {
  const agentId = agentIdOf(principal);
  const { url, eventTypes } = body;
  const target = validateTargetUrl(url, resolveTargetOptions(env));
  if (!target.ok)
    fail({ reason: "invalid-target", rule: target.error.reason, detail: target.error.message });
  const db = createDb(env.DB);
  const now = Date.now();
  const secret = createSecret();
  const row: WebhookEndpointRow = {
    id: createEndpointId(),
    agentId,
    url: target.value.url,
    eventTypes: JSON.stringify(eventTypes),
    secrets: JSON.stringify([{ secret, createdAt: now, expiresAt: null }]),
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    consecutiveFailures: 0,
    lastSuccessAt: null,
    gone: false,
    createdAt: now,
  };
  // The cap is checked inside the insert: concurrent registrations cannot pass it.
  if (!(await insertWebhookEndpointWithinCap(db, row, MAX_ENDPOINTS_PER_AGENT)))
    fail({ reason: "endpoint-limit", limit: MAX_ENDPOINTS_PER_AGENT });
  return { ...endpointToWire(row, now), secret };
}

/** The calling agent's endpoints. */
export async function listEndpoints(
  env: Env,
  principal: Principal,
): Promise<{ endpoints: z.infer<typeof Endpoint>[] }> {
  const rows = await listAgentWebhookEndpoints(createDb(env.DB), agentIdOf(principal));
  const now = Date.now();
  return { endpoints: rows.map((r) => endpointToWire(r, now)) };
}

/** Deletes one of the calling agent's endpoints with its delivery log (404 for others'). */
export async function deleteEndpoint(env: Env, principal: Principal, id: string): Promise<void> {
  const { db, row } = await openOwnEndpoint({ env, var: { principal } }, id);
  await deleteWebhookEndpoint(db, row.id);
}

/** Rotates an endpoint's secret: the new one is returned once; the old one signs 24 h more. */
export async function rotateEndpointSecret(
  env: Env,
  principal: Principal,
  id: string,
): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  const { db, row } = await openOwnEndpoint({ env, var: { principal } }, id);
  const now = Date.now();
  const expiresAt = now + ROTATION_OVERLAP_MS;
  const kept = (JSON.parse(row.secrets) as StoredWebhookSecret[])
    .filter((s) => s.expiresAt === null || s.expiresAt > now)
    .map((s) => ({ ...s, expiresAt: Math.min(s.expiresAt ?? expiresAt, expiresAt) }));
  const secret = createSecret();
  const secrets = [{ secret, createdAt: now, expiresAt: null }, ...kept].slice(
    0,
    MAX_ACTIVE_SECRETS,
  );
  await updateWebhookSecrets(db, row.id, secrets);
  return { secret, previousSecretExpiresAt: new Date(expiresAt).toISOString() };
}

/** Queues a webhook.test event to one of the agent's endpoints, within the test quotas. */
export async function sendTestEvent(
  env: Env,
  principal: Principal,
  id: string,
): Promise<{ messageId: string; eventId: string }> {
  const { db, agentId, row } = await openOwnEndpoint({ env, var: { principal } }, id);
  requireEnabled(row);
  const now = new Date();
  const at = now.getTime();
  const event = buildWebhookTestEvent(row.id, now);
  if (!event.ok) throw new Error(`test event refused: ${JSON.stringify(event.error)}`);
  const eventId = `evt_test_${crypto.randomUUID()}`;
  const messageId = createMessageId();
  // Both quotas are checked inside the insert: concurrent tests cannot pass them.
  const stored = await insertWebhookTestMessageWithinQuota(
    db,
    {
      id: messageId,
      endpointId: row.id,
      eventId,
      type: "webhook.test",
      body: serializeEvent(event.value),
      createdAt: at,
    },
    agentId,
    {
      since: at - TEST_QUOTA_WINDOW_MS,
      perEndpoint: MAX_TESTS_PER_ENDPOINT,
      perAgent: MAX_TESTS_PER_AGENT,
    },
  );
  if (!stored) await refuseTestQuota(db, agentId, row.id, at);
  await enqueueStoredMessages(db, env, [messageId], now);
  return { messageId, eventId };
}

// ─── Routes ───

/** The webhook routes, to mount at /v1; every one needs an agent key (`agentOnly`). */
export const endpointRoutes = createRouter<WebhooksEnv>();

endpointRoutes.openapi(
  createRoute({
    method: "post",
    path: "/webhooks",
    tags,
    summary: "Register a webhook endpoint (the secret is shown once)",
    security,
    middleware: [agentOnly] as const,
    request: { body: { ...json(RegisterBody, ""), required: true } },
    responses: {
      201: json(Endpoint.extend({ secret: z.string() }), "The endpoint and its whsec_ secret"),
      ...problems(
        ...AGENT,
        400,
        [409, "The agent already has the most endpoints it may register (`endpoint-limit`)"],
        415,
        [
          422,
          "The URL breaks a target rule (`invalid-target`); `rule` names it: scheme, port, " +
            "credentials, private, loopback, link-local, metadata, cgnat, numeric-host-form, " +
            "special-use-name, single-label-host, invalid-hostname, blocked-host, …",
        ],
      ),
    },
  }),
  async (c) => c.json(await registerEndpoint(c.env, c.var.principal, c.req.valid("json")), 201),
);

endpointRoutes.openapi(
  createRoute({
    method: "get",
    path: "/webhooks",
    tags,
    summary: "List your webhook endpoints",
    security,
    middleware: [agentOnly] as const,
    responses: {
      200: json(z.object({ endpoints: z.array(Endpoint) }), "Your endpoints"),
      ...problems(...AGENT),
    },
  }),
  async (c) => c.json(await listEndpoints(c.env, c.var.principal), 200),
);

endpointRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/webhooks/{id}",
    tags,
    summary: "Delete a webhook endpoint with its delivery log",
    security,
    middleware: [agentOnly] as const,
    request: { params: z.object({ id: EndpointId }) },
    responses: { 204: { description: "Deleted" }, ...problems(...AGENT, 400, 404) },
  }),
  async (c) => {
    await deleteEndpoint(c.env, c.var.principal, c.req.valid("param").id);
    return c.body(null, 204);
  },
);

endpointRoutes.openapi(
  createRoute({
    method: "post",
    path: "/webhooks/{id}/rotate",
    tags,
    summary: "Rotate the secret (the new one is shown once; the old one signs for 24 h more)",
    security,
    middleware: [agentOnly] as const,
    request: { params: z.object({ id: EndpointId }) },
    responses: {
      200: json(
        z.object({ secret: z.string(), previousSecretExpiresAt: z.iso.datetime() }),
        "The new secret",
      ),
      ...problems(...AGENT, 400, 404),
    },
  }),
  async (c) =>
    c.json(await rotateEndpointSecret(c.env, c.var.principal, c.req.valid("param").id), 200),
);

endpointRoutes.openapi(
  createRoute({
    method: "post",
    path: "/webhooks/{id}/test",
    tags,
    summary: "Send a webhook.test event to the endpoint",
    security,
    middleware: [agentOnly] as const,
    request: { params: z.object({ id: EndpointId }) },
    responses: {
      202: json(z.object({ messageId: z.string(), eventId: z.string() }), "Queued"),
      ...problems(...AGENT, 400, 404, 409),
    },
  }),
  async (c) => c.json(await sendTestEvent(c.env, c.var.principal, c.req.valid("param").id), 202),
);

endpointRoutes.openapi(
  createRoute({
    method: "get",
    path: "/webhooks/{id}/deliveries",
    tags,
    summary: "The endpoint's delivery log (newest first)",
    security,
    middleware: [agentOnly] as const,
    request: {
      params: z.object({ id: EndpointId }),
      query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
    },
    responses: {
      200: json(z.object({ deliveries: z.array(Delivery) }), "Messages and their attempts"),
      ...problems(...AGENT, 400, 404),
    },
  }),
  async (c) => {
    const { db, row } = await openOwnEndpoint(c, c.req.valid("param").id);
    const log = await listWebhookDeliveries(db, row.id, c.req.valid("query").limit);
    return c.json(
      {
        deliveries: log.map(({ message, attempts }) => ({
          messageId: message.id,
          eventId: message.eventId,
          type: message.type,
          status: message.status,
          createdAt: new Date(message.createdAt).toISOString(),
          attempts: attempts.map((a) => ({
            attempt: a.attempt,
            at: new Date(a.at).toISOString(),
            outcome: a.outcome,
            reason: a.reason,
            status: a.status,
            latencyMs: a.latencyMs,
            response: a.response,
            responseTruncated: a.responseTruncated,
          })),
        })),
      },
      200,
    );
  },
);

endpointRoutes.openapi(
  createRoute({
    method: "post",
    path: "/webhooks/{id}/deliveries/{messageId}/redeliver",
    tags,
    summary: "Deliver a settled message again, with the same webhook-id (409 while pending)",
    security,
    middleware: [agentOnly] as const,
    request: { params: z.object({ id: EndpointId, messageId: MessageId }) },
    responses: {
      202: json(z.object({ messageId: z.string() }), "Queued"),
      ...problems(...AGENT, 400, 404, 409),
    },
  }),
  async (c) => {
    const { id, messageId } = c.req.valid("param");
    const { db, row } = await openOwnEndpoint(c, id);
    const found = await findWebhookMessage(db, messageId);
    if (!found || found.message.endpointId !== row.id)
      fail({ reason: "not-found", resource: "delivery" });
    requireEnabled(row);
    const at = Date.now();
    const { message } = found;
    if (message.status === "pending") {
      // One round at a time: a pending message is queued or retrying, unless it is stuck.
      const latest = await findLatestWebhookAttempt(db, messageId);
      const lastActivity = Math.max(message.updatedAt, latest?.at ?? 0);
      if (at - lastActivity < STUCK_PENDING_MS)
        fail({ reason: "delivery-pending", retryAfterSeconds: estimateNextAttempt(latest, at) });
    }
    // Compare-and-set: of concurrent redeliveries of one message, one starts a round.
    if (!(await reopenWebhookMessage(db, messageId, message, at)))
      fail({ reason: "delivery-pending", retryAfterSeconds: RETRY_STEPS_SECONDS[0] });
    await c.env.WEBHOOKS.send(deliveryMessage(messageId, at));
    return c.json({ messageId }, 202);
  },
);

endpointRoutes.openapi(
  createRoute({
    method: "post",
    path: "/webhooks/{id}/enable",
    tags,
    summary: "Re-enable a disabled endpoint (its failure streak is kept)",
    security,
    middleware: [agentOnly] as const,
    request: { params: z.object({ id: EndpointId }) },
    responses: { 200: json(Endpoint, "The endpoint"), ...problems(...AGENT, 400, 404) },
  }),
  async (c) => {
    const { db, agentId, row } = await openOwnEndpoint(c, c.req.valid("param").id);
    await enableWebhookEndpoint(db, row.id);
    const updated = await ownEndpoint(db, agentId, row.id);
    return c.json(endpointToWire(updated, Date.now()), 200);
  },
);
