/**
 * @module webhooks-worker/consumer
 * The `bouts-webhooks` consumer and its dead-letter consumer (docs/webhooks.md, "How the
 * platform delivers"): an `event` fans out into one stored message and one `delivery` per
 * subscribed endpoint; a `delivery` is one signed attempt. Invariants: the body sent is the stored
 * string, byte for byte, and the `webhook-id` its message id, on every attempt and redelivery;
 * only `pending` messages are sent; every attempt is recorded before its queue message is settled.
 */
import {
  deliveryMessage,
  WebhookQueueMessageSchema,
  type DeliveryMessage,
  type EventMessage,
  type WebhookQueueMessage,
} from "@bouts/contracts";
import {
  createDb,
  deleteWebhookMessages,
  disableWebhookEndpoint,
  findLatestWebhookAttempt,
  findRankingRoundedScore,
  findScore,
  findWebhookMessage,
  insertWebhookAttempt,
  insertWebhookMessages,
  listSubscribedWebhookEndpoints,
  setWebhookMessageStatus,
  updateWebhookHealth,
  type Db,
  type StoredWebhookSecret,
  type WebhookEndpointRow,
} from "@bouts/db";
import {
  assessEndpointHealth,
  computeRetryDelay,
  createMessageId,
  deliverWebhook,
  recordDeliveryAttempt,
  signPayload,
  type DeliveryOutcome,
} from "@bouts/webhooks";
import { resolveLinkOrigin, resolveTargetOptions, type WebhooksVars } from "./config.ts";
import { buildEventBody } from "./events.ts";

/** The bindings the consumer uses. */
export type WebhooksConsumerEnv = WebhooksVars & {
  DB: D1Database;
  WEBHOOKS: Queue<WebhookQueueMessage>;
  /** `bouts-webhooks-dlq`: where a delivery goes when its retry schedule is exhausted. */
  WEBHOOKS_DLQ: Queue<DeliveryMessage>;
};

/** Injectable effects, for tests; production uses the globals. */
export interface ConsumeOptions {
  fetch?: typeof fetch;
  random?: () => number;
  now?: () => Date;
}

/** Consumes a batch of the webhooks queue; each message is handled on its own, concurrently. */
export async function consumeWebhooks(
  batch: MessageBatch,
  env: WebhooksConsumerEnv,
  options: ConsumeOptions = {},
): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await handleMessage(message, env, options);
      } catch (e) {
        // A fault of ours (D1, the queue): retry on the queue's schedule, then the DLQ.
        console.error(`webhooks: message ${message.id} failed`, e);
        message.retry();
      }
    }),
  );
}

async function handleMessage(
  message: Message,
  env: WebhooksConsumerEnv,
  options: ConsumeOptions,
): Promise<void> {
  const parsed = WebhookQueueMessageSchema.safeParse(message.body);
  if (!parsed.success) {
    // Bad data does not get better with retries: log what its contract refused, and drop it.
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`);
    console.error(`webhooks: dropping malformed message ${message.id}: ${issues.join("; ")}`);
    message.ack();
    return;
  }
  const body = parsed.data;
  if (body.kind === "event") await fanOut(body, env, options.now?.() ?? new Date());
  else await deliver(message, body, env, options);
  // `deliver` acks or retries itself; a fan-out is done once its deliveries are enqueued.
  if (body.kind === "event") message.ack();
}

// ─── Fan-out ───

async function fanOut(event: EventMessage, env: WebhooksConsumerEnv, now: Date): Promise<void> {
  const db = createDb(env.DB);
  const endpoints = await listSubscribedWebhookEndpoints(db, event.agentId, event.type);
  if (endpoints.length === 0) return;
  const recipientScore =
    event.type === "leaderboard.overtaken"
      ? await findRankingRoundedScore(db, event.agentId, event.challengeId)
      : null;
  // A scored event queued before messages carried the exact fraction: read it from the score.
  const storedFraction =
    event.type === "submission.scored" && event.data.fraction === undefined
      ? ((await findScore(db, event.submissionId))?.finalFraction ?? null)
      : null;
  const body = buildEventBody(event, {
    linkOrigin: resolveLinkOrigin(env),
    now,
    recipientScore,
    storedFraction,
  });
  if (!body.ok) {
    // Bad data does not get better with retries: log it and drop the event.
    console.error(`webhooks: event ${event.eventId} not sendable`, JSON.stringify(body.error));
    return;
  }
  await enqueueMessages(db, env, endpoints, event.eventId, event.type, body.value, now);
}

/**
 * Stores one message per endpoint (skipping any that already exist for the event: UNIQUE(endpoint,
 * event), so a repeated event enqueues nothing) and enqueues a delivery for each new one; returns
 * the new message ids.
 */
export async function enqueueMessages(
  db: Db,
  env: WebhooksConsumerEnv,
  endpoints: Pick<WebhookEndpointRow, "id">[],
  eventId: string,
  type: string,
  body: string,
  now: Date,
): Promise<string[]> {
  const ids = await insertWebhookMessages(
    db,
    endpoints.map((e) => ({
      id: createMessageId(),
      endpointId: e.id,
      eventId,
      type,
      body,
      createdAt: now.getTime(),
    })),
  );
  return enqueueStoredMessages(db, env, ids, now);
}

/**
 * Enqueues a delivery for each stored message `ids`; when the queue refuses them, deletes them
 * again (so a retry of the event or request stores and enqueues them afresh) and throws.
 */
export async function enqueueStoredMessages(
  db: Db,
  env: WebhooksConsumerEnv,
  ids: string[],
  now: Date,
): Promise<string[]> {
  if (ids.length === 0) return ids;
  try {
    await env.WEBHOOKS.sendBatch(ids.map((id) => ({ body: deliveryMessage(id, now.getTime()) })));
  } catch (e) {
    // Unstored again, so that the event's retry inserts and enqueues them afresh.
    await deleteWebhookMessages(db, ids);
    throw e;
  }
  return ids;
}

// ─── Delivery ───

/** The secrets to sign with at `now`: the current one and any still inside its overlap. */
export function activeSecrets(endpoint: WebhookEndpointRow, now: number): string[] {
  const secrets = JSON.parse(endpoint.secrets) as StoredWebhookSecret[];
  return secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).map((s) => s.secret);
}

async function deliver(
  message: Message,
  body: DeliveryMessage,
  env: WebhooksConsumerEnv,
  options: ConsumeOptions,
): Promise<void> {
  const db = createDb(env.DB);
  const now = options.now?.() ?? new Date();
  const found = await findWebhookMessage(db, body.messageId);
  if (!found || found.message.status !== "pending") {
    message.ack(); // deleted with its endpoint, or a duplicate of a settled message
    return;
  }
  const { message: stored, endpoint } = found;
  const record = (
    outcome: string,
    fields: Partial<{ reason: string | null; status: number | null; latencyMs: number }> & {
      response?: string | null;
      truncated?: boolean;
    } = {},
  ) =>
    insertWebhookAttempt(db, {
      messageId: stored.id,
      attempt: message.attempts,
      at: now.getTime(),
      outcome,
      reason: fields.reason ?? null,
      status: fields.status ?? null,
      latencyMs: fields.latencyMs ?? 0,
      response: fields.response ?? null,
      responseTruncated: fields.truncated ?? false,
    });

  if (endpoint.disabledAt !== null) {
    await record("skipped", { reason: "endpoint-disabled" });
    await setWebhookMessageStatus(db, stored.id, "skipped", now.getTime());
    message.ack();
    return;
  }
  const signed = await signPayload({
    id: stored.id,
    timestamp: now,
    body: stored.body,
    secrets: activeSecrets(endpoint, now.getTime()),
  });
  if (!signed.ok) {
    await record("failed", { reason: signed.error.reason });
    await setWebhookMessageStatus(db, stored.id, "failed", now.getTime());
    message.ack();
    return;
  }
  const outcome = await deliverWebhook({
    fetch: options.fetch ?? fetch,
    url: endpoint.url,
    headers: signed.value,
    body: stored.body,
    ...resolveTargetOptions(env),
  });
  await record(outcome.outcome, attemptFields(outcome));

  // Health: fold the attempt in, and disable the endpoint when the policy says so.
  const history = recordDeliveryAttempt(
    {
      failingSince: endpoint.failingSince === null ? null : new Date(endpoint.failingSince),
      consecutiveFailures: endpoint.consecutiveFailures,
      lastSuccessAt: endpoint.lastSuccessAt === null ? null : new Date(endpoint.lastSuccessAt),
      gone: endpoint.gone,
    },
    outcome.outcome,
    now,
  );
  await updateWebhookHealth(db, endpoint.id, {
    failingSince: history.failingSince?.getTime() ?? null,
    consecutiveFailures: history.consecutiveFailures,
    lastSuccessAt: history.lastSuccessAt?.getTime() ?? null,
    gone: history.gone,
  });
  const health = assessEndpointHealth(history, now);
  if (health.action === "disable")
    await disableWebhookEndpoint(db, endpoint.id, now.getTime(), health.message);

  if (outcome.outcome === "delivered") {
    await setWebhookMessageStatus(db, stored.id, "delivered", now.getTime());
    message.ack();
    return;
  }
  if (outcome.outcome === "retry" && health.action === "keep") {
    const plan = computeRetryDelay(
      message.attempts,
      options.random ?? Math.random,
      outcome.retryAfterSeconds,
    );
    if (plan.ok) {
      message.retry({ delaySeconds: plan.value.delaySeconds });
      return;
    }
    // Exhausted. Dead-lettered by us, not by a retry past `max_retries`: the schedule alone
    // decides when, whatever the queue's limit. Marked first, so the log never shows a
    // buried message as pending; a failed send throws, and the retry lets the queue
    // dead-letter it instead (attempts > max_retries).
    await setWebhookMessageStatus(db, stored.id, "dead", now.getTime());
    await env.WEBHOOKS_DLQ.send(body);
    message.ack();
    return;
  }
  // Refused for good (3xx, 4xx, 410) or the endpoint was just disabled.
  await setWebhookMessageStatus(db, stored.id, "failed", now.getTime());
  message.ack();
}

function attemptFields(outcome: DeliveryOutcome) {
  const response = "response" in outcome ? outcome.response : null;
  const detail =
    outcome.outcome === "failed" && outcome.reason === "redirect"
      ? `redirect to ${outcome.location ?? "(no Location)"}`
      : outcome.outcome === "failed" && outcome.reason === "invalid-target"
        ? `${outcome.rule}: ${outcome.detail}`
        : outcome.outcome === "retry" && response === null
          ? outcome.detail
          : null;
  return {
    reason: outcome.outcome === "delivered" ? null : outcome.reason,
    status: response?.status ?? null,
    latencyMs: Math.round(outcome.latencyMs),
    response: detail ?? response?.body ?? null,
    truncated: response?.truncated ?? false,
  };
}

// ─── Dead letters ───

/**
 * Consumes `bouts-webhooks-dlq`. A dead delivery gets one final `dead` entry in its delivery
 * log and the status `dead`, whichever way it arrived: sent by {@link consumeWebhooks} when
 * the retry schedule ran out (already `dead`), or moved by the queue after `max_retries`
 * because the consumer itself kept failing (still `pending`). Idempotent: a message whose
 * latest log entry is already `dead` is left alone (a repeated dead letter), and so is a
 * pending message redelivered since the letter's round began (a stale letter), and a message
 * that has settled otherwise (delivered, failed, skipped). An event is only logged. A fault
 * of ours retries that dead letter alone.
 */
export async function consumeDeadWebhooks(
  batch: MessageBatch,
  env: Pick<WebhooksConsumerEnv, "DB">,
  now: () => Date = () => new Date(),
): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    try {
      await buryDeadLetter(db, message, now());
      message.ack();
    } catch (e) {
      console.error(`webhooks: dead letter ${message.id} failed`, e);
      message.retry();
    }
  }
}

async function buryDeadLetter(db: Db, message: Message, now: Date): Promise<void> {
  const parsed = WebhookQueueMessageSchema.safeParse(message.body);
  if (!parsed.success || parsed.data.kind !== "delivery") {
    console.error(`webhooks: dead letter ${message.id}`, JSON.stringify(message.body));
    return;
  }
  const found = await findWebhookMessage(db, parsed.data.messageId);
  if (!found) {
    console.warn(`webhooks: dead letter ${message.id} for a deleted message`);
    return;
  }
  const { id, status, updatedAt } = found.message;
  if (status !== "pending" && status !== "dead") return;
  // A letter from a round before the last manual redelivery (queued before the message went
  // back to pending) must not bury the redelivery now in progress.
  const { queuedAt } = parsed.data;
  if (status === "pending" && queuedAt !== undefined && queuedAt < updatedAt) return;
  const latest = await findLatestWebhookAttempt(db, id);
  if (latest?.outcome === "dead") return;
  await insertWebhookAttempt(db, {
    messageId: id,
    // The attempt it concludes: the last one made (0 when none was recorded).
    attempt: latest?.attempt ?? 0,
    at: now.getTime(),
    outcome: "dead",
    reason: status === "dead" ? "retries-exhausted" : "dead-lettered",
    status: null,
    latencyMs: 0,
    response: null,
    responseTruncated: false,
  });
  if (status === "pending") await setWebhookMessageStatus(db, id, "dead", now.getTime());
}
