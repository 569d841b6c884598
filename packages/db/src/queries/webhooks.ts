/**
 * @module db/queries/webhooks
 * Reads and writes of the webhook sender. Invariants: an agent's lookups are scoped by
 * agent id, so another agent's endpoint reads as missing; a message is inserted at most once
 * per (endpoint, event) and {@link insertWebhookMessages} returns only the new ones; deleting
 * an endpoint deletes its messages and attempts in the same batch; a message is put back to
 * `pending` only by a compare-and-set on its status and `updated_at`, so two concurrent
 * redeliveries start one round.
 */
import { and, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { D1_MAX_BOUND_PARAMETERS, type Db } from "../db.ts";
import { challenges } from "../schema.ts";
import { scores } from "../schema-scores.ts";
import {
  webhookAttempts,
  webhookEndpoints,
  webhookMessages,
  type NewWebhookAttempt,
  type StoredWebhookSecret,
  type WebhookAttemptRow,
  type WebhookEndpointRow,
  type WebhookMessageRow,
  type WebhookMessageStatus,
} from "../schema-webhooks.ts";

/** The health counters stored on an endpoint (packages/webhooks `EndpointHealthHistory`). */
export interface StoredEndpointHealth {
  failingSince: number | null;
  consecutiveFailures: number;
  lastSuccessAt: number | null;
  gone: boolean;
}

/** Inserts a new endpoint. */
export async function insertWebhookEndpoint(db: Db, row: WebhookEndpointRow): Promise<void> {
  await db.insert(webhookEndpoints).values(row);
}

/**
 * Inserts a new endpoint only while its agent has fewer than `max` endpoints, in one statement
 * (`INSERT … SELECT … WHERE (SELECT count(*) …) < max`), so concurrent registrations can never
 * take the agent past the cap; returns whether the row was inserted.
 */
export async function insertWebhookEndpointWithinCap(
  db: Db,
  row: WebhookEndpointRow,
  max: number,
): Promise<boolean> {
  const result = await db.$client
    .prepare(
      `INSERT INTO webhook_endpoints (id, agent_id, url, event_types, secrets, disabled_at,
         disabled_reason, failing_since, consecutive_failures, last_success_at, gone, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12
       WHERE (SELECT count(*) FROM webhook_endpoints WHERE agent_id = ?2) < ?13`,
    )
    .bind(
      row.id,
      row.agentId,
      row.url,
      row.eventTypes,
      row.secrets,
      row.disabledAt,
      row.disabledReason,
      row.failingSince,
      row.consecutiveFailures,
      row.lastSuccessAt,
      row.gone ? 1 : 0,
      row.createdAt,
      max,
    )
    .run();
  return result.meta.changes > 0;
}

/** An agent's endpoints, oldest first. */
export function listAgentWebhookEndpoints(db: Db, agentId: string): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.agentId, agentId))
    .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id)
    .all();
}

/** One of the agent's endpoints; undefined when missing or another agent's. */
export function findAgentWebhookEndpoint(
  db: Db,
  agentId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.agentId, agentId)))
    .get();
}

/** The agent's enabled endpoints subscribed to `type`. */
export async function listSubscribedWebhookEndpoints(
  db: Db,
  agentId: string,
  type: string,
): Promise<WebhookEndpointRow[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.agentId, agentId), isNull(webhookEndpoints.disabledAt)))
    .all();
  return rows.filter((r) => (JSON.parse(r.eventTypes) as string[]).includes(type));
}

/** Deletes an endpoint with its messages and attempts, in one batch. */
export async function deleteWebhookEndpoint(db: Db, id: string): Promise<void> {
  const messageIds = db
    .select({ id: webhookMessages.id })
    .from(webhookMessages)
    .where(eq(webhookMessages.endpointId, id));
  await db.batch([
    db.delete(webhookAttempts).where(inArray(webhookAttempts.messageId, messageIds)),
    db.delete(webhookMessages).where(eq(webhookMessages.endpointId, id)),
    db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)),
  ]);
}

/** Replaces an endpoint's secrets (newest first). */
export async function updateWebhookSecrets(
  db: Db,
  id: string,
  secrets: StoredWebhookSecret[],
): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ secrets: JSON.stringify(secrets) })
    .where(eq(webhookEndpoints.id, id));
}

/** Stores an endpoint's health counters. */
export async function updateWebhookHealth(
  db: Db,
  id: string,
  health: StoredEndpointHealth,
): Promise<void> {
  await db.update(webhookEndpoints).set(health).where(eq(webhookEndpoints.id, id));
}

/** Disables an endpoint with the sentence shown to the agent; an already-disabled one keeps its reason. */
export async function disableWebhookEndpoint(
  db: Db,
  id: string,
  at: number,
  reason: string,
): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ disabledAt: at, disabledReason: reason })
    .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.disabledAt)));
}

/**
 * Re-enables an endpoint. The failure streak (`failingSince`, `consecutiveFailures`) is kept,
 * so an endpoint that is still dead is disabled again by its next failed attempt; only a
 * delivered attempt resets it. The 410 mark is cleared: re-enabling says the URL is back.
 */
export async function enableWebhookEndpoint(db: Db, id: string): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ disabledAt: null, disabledReason: null, gone: false })
    .where(eq(webhookEndpoints.id, id));
}

/** A message before insertion. */
export type NewWebhookMessage = Omit<WebhookMessageRow, "status" | "updatedAt">;

/**
 * Inserts messages, ignoring any whose (endpoint, event) already exists; returns the ids of
 * the rows actually inserted (the ones to deliver).
 */
export async function insertWebhookMessages(db: Db, rows: NewWebhookMessage[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const values = rows.map((r) => ({ ...r, status: "pending" as const, updatedAt: r.createdAt }));
  // D1 binds at most 100 parameters per statement: one statement per slice that fits, all in
  // one batch (one transaction), so an agent with more endpoints than one slice holds (one
  // registered before the cap) gets every message or none.
  const perStatement = Math.max(
    1,
    Math.floor(D1_MAX_BOUND_PARAMETERS / Object.keys(values[0]!).length),
  );
  const statements = [];
  for (let i = 0; i < values.length; i += perStatement) {
    statements.push(
      db
        .insert(webhookMessages)
        .values(values.slice(i, i + perStatement))
        .onConflictDoNothing()
        .returning({ id: webhookMessages.id }),
    );
  }
  const [first, ...rest] = statements;
  const inserted = await db.batch([first!, ...rest]);
  return inserted.flat().map((r) => r.id);
}

/** A message with its endpoint; undefined when either is gone. */
export async function findWebhookMessage(
  db: Db,
  id: string,
): Promise<{ message: WebhookMessageRow; endpoint: WebhookEndpointRow } | undefined> {
  return db
    .select({ message: webhookMessages, endpoint: webhookEndpoints })
    .from(webhookMessages)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookMessages.endpointId))
    .where(eq(webhookMessages.id, id))
    .get();
}

/** Sets a message's status. */
export async function setWebhookMessageStatus(
  db: Db,
  id: string,
  status: WebhookMessageStatus,
  at: number,
): Promise<void> {
  await db.update(webhookMessages).set({ status, updatedAt: at }).where(eq(webhookMessages.id, id));
}

/**
 * Puts a message back to `pending` for a new round of delivery, only if it is still in the
 * state the caller read (`status`, `updatedAt`); returns whether this call did it.
 */
export async function reopenWebhookMessage(
  db: Db,
  id: string,
  seen: Pick<WebhookMessageRow, "status" | "updatedAt">,
  at: number,
): Promise<boolean> {
  const rows = await db
    .update(webhookMessages)
    .set({ status: "pending", updatedAt: at })
    .where(
      and(
        eq(webhookMessages.id, id),
        eq(webhookMessages.status, seen.status),
        eq(webhookMessages.updatedAt, seen.updatedAt),
      ),
    )
    .returning({ id: webhookMessages.id });
  return rows.length > 0;
}

/** Test events stored since `since` (ms): how many, and when the oldest of them was stored. */
export interface RecentWebhookTests {
  count: number;
  oldestAt: number | null;
}

/**
 * The test events stored since `since` for one endpoint, or for all of an agent's endpoints:
 * the two quotas of `POST /v1/webhooks/{id}/test`.
 */
export async function countWebhookTests(
  db: Db,
  scope: { endpointId: string } | { agentId: string },
  since: number,
): Promise<RecentWebhookTests> {
  const owner =
    "endpointId" in scope
      ? eq(webhookMessages.endpointId, scope.endpointId)
      : eq(webhookEndpoints.agentId, scope.agentId);
  const row = await db
    .select({
      count: sql<number>`count(*)`,
      oldestAt: sql<number | null>`min(${webhookMessages.createdAt})`,
    })
    .from(webhookMessages)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookMessages.endpointId))
    .where(
      and(owner, eq(webhookMessages.type, "webhook.test"), gt(webhookMessages.createdAt, since)),
    )
    .get();
  return { count: row?.count ?? 0, oldestAt: row?.oldestAt ?? null };
}

/** The two test-event quotas a new `webhook.test` message must fit: per endpoint and per agent. */
export interface WebhookTestQuota {
  /** Test events stored after this instant (ms) count. */
  since: number;
  perEndpoint: number;
  perAgent: number;
}

/**
 * Stores a `webhook.test` message only while both quotas have room (fewer than `perEndpoint`
 * test events of its endpoint, and fewer than `perAgent` of all its agent's endpoints, stored
 * after `quota.since`), in one statement, so concurrent test requests never store more than
 * the quota; returns whether it was stored. The caller enqueues its delivery.
 */
export async function insertWebhookTestMessageWithinQuota(
  db: Db,
  row: NewWebhookMessage,
  agentId: string,
  quota: WebhookTestQuota,
): Promise<boolean> {
  const result = await db.$client
    .prepare(
      `INSERT INTO webhook_messages (id, endpoint_id, event_id, type, body, status, created_at, updated_at)
       SELECT ?1, ?2, ?3, 'webhook.test', ?4, 'pending', ?5, ?5
       WHERE (SELECT count(*) FROM webhook_messages
               WHERE endpoint_id = ?2 AND type = 'webhook.test' AND created_at > ?7) < ?8
         AND (SELECT count(*) FROM webhook_messages m
               JOIN webhook_endpoints e ON e.id = m.endpoint_id
               WHERE e.agent_id = ?6 AND m.type = 'webhook.test' AND m.created_at > ?7) < ?9
       ON CONFLICT DO NOTHING`,
    )
    .bind(
      row.id,
      row.endpointId,
      row.eventId,
      row.body,
      row.createdAt,
      agentId,
      quota.since,
      quota.perEndpoint,
      quota.perAgent,
    )
    .run();
  return result.meta.changes > 0;
}

/**
 * Deletes up to `limit` messages last updated before `before` (ms), oldest first, with their
 * attempts, in one batch; returns how many messages and attempts went. A message that old is
 * settled: no retry schedule lasts that long, and a late queue message for it is acked unsent.
 */
export async function pruneWebhookDeliveries(
  db: Db,
  before: number,
  limit: number,
): Promise<{ messages: number; attempts: number }> {
  const d1 = db.$client;
  // The same ordered selection in both statements of one batch (a transaction).
  const doomed = `SELECT id FROM webhook_messages WHERE updated_at < ?1 ORDER BY updated_at, id LIMIT ?2`;
  const [attempts, messages] = await d1.batch([
    d1.prepare(`DELETE FROM webhook_attempts WHERE message_id IN (${doomed})`).bind(before, limit),
    d1.prepare(`DELETE FROM webhook_messages WHERE id IN (${doomed})`).bind(before, limit),
  ]);
  return { messages: messages?.meta.changes ?? 0, attempts: attempts?.meta.changes ?? 0 };
}

/** Records one attempt. */
export async function insertWebhookAttempt(db: Db, row: NewWebhookAttempt): Promise<void> {
  await db.insert(webhookAttempts).values(row);
}

/** The message's most recent attempt (or dead-letter entry); undefined when it has none. */
export async function findLatestWebhookAttempt(
  db: Db,
  messageId: string,
): Promise<WebhookAttemptRow | undefined> {
  return db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.messageId, messageId))
    .orderBy(desc(webhookAttempts.id))
    .limit(1)
    .get();
}

/** A message of the delivery log with its attempts, oldest attempt first. */
export interface WebhookDelivery {
  message: WebhookMessageRow;
  attempts: WebhookAttemptRow[];
}

/** The endpoint's most recent messages (newest first, at most `limit`) with their attempts. */
export async function listWebhookDeliveries(
  db: Db,
  endpointId: string,
  limit: number,
): Promise<WebhookDelivery[]> {
  const messages = await db
    .select()
    .from(webhookMessages)
    .where(eq(webhookMessages.endpointId, endpointId))
    .orderBy(desc(webhookMessages.createdAt), desc(webhookMessages.id))
    .limit(limit)
    .all();
  if (messages.length === 0) return [];
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.messageId,
        messages.map((m) => m.id),
      ),
    )
    .orderBy(webhookAttempts.id)
    .all();
  return messages.map((message) => ({
    message,
    attempts: attempts.filter((a) => a.messageId === message.id),
  }));
}

/**
 * The rounded score that ranks the agent on a challenge (its best or its latest scored
 * submission, per the challenge's ranking mode); null when it has none.
 */
export async function findRankingRoundedScore(
  db: Db,
  agentId: string,
  challengeId: string,
): Promise<number | null> {
  const challenge = await db
    .select({ rankingMode: challenges.rankingMode })
    .from(challenges)
    .where(eq(challenges.id, challengeId))
    .get();
  const row = await db
    .select({ rounded: scores.finalRounded })
    .from(scores)
    .where(and(eq(scores.agentId, agentId), eq(scores.challengeId, challengeId)))
    .orderBy(
      challenge?.rankingMode === "latest" ? desc(scores.iteration) : desc(scores.finalRounded),
    )
    .limit(1)
    .get();
  return row?.rounded ?? null;
}

/** Deletes messages (never attempted) by id. */
export async function deleteWebhookMessages(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(webhookMessages).where(inArray(webhookMessages.id, ids));
}
