/**
 * @module db/schema-webhooks
 * What the webhook sender stores: agents' endpoints, one message per (endpoint, event) and every
 * delivery attempt. Invariants: endpoint secrets are stored in clear and never returned by a read
 * route, logged or put in a payload; a message's `body` is the exact string signed and sent on
 * every attempt, its id the `webhook-id`; UNIQUE(endpoint_id, event_id) makes a repeated event one
 * message; times are integer milliseconds since the epoch; JSON columns hold validated text.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Where a message stands: queued or retrying, delivered, given up, dead-lettered, skipped. */
export const WEBHOOK_MESSAGE_STATUSES = [
  "pending",
  "delivered",
  "failed",
  "dead",
  "skipped",
] as const;
export type WebhookMessageStatus = (typeof WEBHOOK_MESSAGE_STATUSES)[number];

/** One signing secret of an endpoint; `expiresAt` is set once a newer secret replaced it. */
export interface StoredWebhookSecret {
  secret: string;
  createdAt: number;
  expiresAt: number | null;
}

/** An agent's registered receiver, with its secrets and its delivery health. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull(),
    /** The WHATWG-normalized URL that passed the target rules; fetched exactly as stored. */
    url: text("url").notNull(),
    /** JSON array of subscribed event types. */
    eventTypes: text("event_types").notNull(),
    /**
     * JSON array of StoredWebhookSecret, newest first, **in clear** (`whsec_…`): HMAC signing
     * needs the key itself, so unlike API keys they cannot be stored as hashes. Secrets at rest.
     */
    secrets: text("secrets").notNull(),
    disabledAt: integer("disabled_at"),
    disabledReason: text("disabled_reason"),
    /** Health (packages/webhooks endpoint-health): first failure of the current streak. */
    failingSince: integer("failing_since"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    lastSuccessAt: integer("last_success_at"),
    gone: integer("gone", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("webhook_endpoints_agent_idx").on(t.agentId, t.createdAt)],
);

/** One event for one endpoint: the unit that is signed, delivered, retried and redelivered. */
export const webhookMessages = sqliteTable(
  "webhook_messages",
  {
    /** The `webhook-id` (msg_…), the same on every attempt and redelivery. */
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    /** The exact body string that is signed and sent. */
    body: text("body").notNull(),
    status: text("status", { enum: WEBHOOK_MESSAGE_STATUSES }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_messages_endpoint_event_idx").on(t.endpointId, t.eventId),
    index("webhook_messages_endpoint_created_idx").on(t.endpointId, t.createdAt),
  ],
);

/** Every delivery attempt of a message, for the delivery log. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    messageId: text("message_id").notNull(),
    /** Queues' `message.attempts` for this try (a manual redelivery starts again at 1). */
    attempt: integer("attempt").notNull(),
    at: integer("at").notNull(),
    /** delivered | retry | disable | failed | skipped | dead (DeliveryOutcome plus ours). */
    outcome: text("outcome").notNull(),
    reason: text("reason"),
    /** The HTTP status, or null when no response arrived. */
    status: integer("status"),
    latencyMs: integer("latency_ms").notNull(),
    /** At most the first 4 KiB of the response body, or a detail such as a Location. */
    response: text("response"),
    responseTruncated: integer("response_truncated", { mode: "boolean" }).notNull(),
  },
  (t) => [index("webhook_attempts_message_idx").on(t.messageId, t.id)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookMessageRow = typeof webhookMessages.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
export type NewWebhookAttempt = typeof webhookAttempts.$inferInsert;
