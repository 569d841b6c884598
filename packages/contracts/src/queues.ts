/**
 * @module contracts/queues
 * Every message on the platform's queues (docs/storage-schema.md, "Queue messages"), each with
 * the one schema its consumer parses it with and the constructor its producers build it with:
 * `bouts-submissions` (a submission to score, a rescore) and its dead-letter queue,
 * `bouts-webhooks` (an event, fanned out into deliveries; the events are in webhook-events.ts).
 * Pure: zod only.
 *
 * Invariants:
 * - Ids only: a consumer reads everything else from D1 and R2, far below the 128 KB limit.
 * - Producers build messages only through the constructors, whose parameters require every
 *   field. Consumers read tolerantly: a field optional here is one the consumer does not need or
 *   one that messages queued before it existed lack, and unknown keys are dropped; a message
 *   that lacks what its consumer needs fails its schema, never a read further on.
 */
import { z } from "zod";
import { EventMessageSchema } from "./webhook-events.ts";

/** Most messages one `sendBatch` may carry (Cloudflare Queues limit). */
export const MAX_BATCH_MESSAGES = 100;

/**
 * `messages` as `sendBatch` arguments, in order, at most {@link MAX_BATCH_MESSAGES} each.
 * @example for (const batch of toBatches(events)) await env.WEBHOOKS.sendBatch(batch);
 */
export function toBatches<T>(messages: readonly T[]): { body: T }[][] {
  const batches: { body: T }[][] = [];
  for (let i = 0; i < messages.length; i += MAX_BATCH_MESSAGES)
    batches.push(messages.slice(i, i + MAX_BATCH_MESSAGES).map((body) => ({ body })));
  return batches;
}

const Id = z.string().min(1).max(100);

// ─── bouts-submissions ───

/**
 * A submission to score (sent by ingest on upload, publish and rejudge, and by its sweep and
 * the scoring reconciler). It has no `kind`: messages queued before rescores existed had none.
 */
export const SubmissionMessageSchema = z.object({
  v: z.literal(1),
  kind: z.undefined().optional(),
  submissionId: Id,
  /** For the record; the consumer reads the submission's challenge from D1. */
  challengeId: Id.optional(),
  /** For the record; the consumer reads the submission's agent from D1. */
  agentId: Id.optional(),
});
export type SubmissionMessage = z.infer<typeof SubmissionMessageSchema>;

/** A counted submission to rescore on a candidate challenge version (docs/design.md §30). */
export const RescoreMessageSchema = z.object({
  v: z.literal(1),
  kind: z.literal("rescore"),
  challengeId: Id,
  version: z.int().min(2),
  submissionId: Id,
});
export type RescoreMessage = z.infer<typeof RescoreMessageSchema>;

/** Anything on the submissions queue: a submission to score, or a rescore. */
export const SubmissionsQueueMessageSchema = z.discriminatedUnion("kind", [
  SubmissionMessageSchema,
  RescoreMessageSchema,
]);
export type SubmissionsQueueMessage = z.infer<typeof SubmissionsQueueMessageSchema>;

/** The message that scores `submissionId`. */
export const submissionMessage = (ids: {
  submissionId: string;
  challengeId: string;
  agentId: string;
}): SubmissionMessage => ({
  v: 1,
  submissionId: ids.submissionId,
  challengeId: ids.challengeId,
  agentId: ids.agentId,
});

/** The message that runs one rescore. */
export const rescoreMessage = (key: {
  challengeId: string;
  version: number;
  submissionId: string;
}): RescoreMessage => ({
  v: 1,
  kind: "rescore",
  challengeId: key.challengeId,
  version: key.version,
  submissionId: key.submissionId,
});

/** What the score role puts on `bouts-submissions-dlq` itself: a message it cannot read, and why. */
export const DeadLetterSchema = z.object({
  v: z.literal(1),
  kind: z.literal("dead-letter"),
  reason: z.enum(["malformed-message"]),
  detail: z.string(),
  messageId: z.string(),
  body: z.unknown(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;

// ─── bouts-webhooks ───

/**
 * One stored message (`webhook_messages.id`) to deliver to its endpoint. `queuedAt` (ms) is when
 * this round of delivery began (the fan-out, or a manual redelivery): a dead letter older than
 * the message's last redelivery is stale. Absent on messages queued before it existed.
 */
export const DeliveryMessageSchema = z.object({
  v: z.literal(1),
  kind: z.literal("delivery"),
  messageId: z.string().min(1),
  queuedAt: z.number().int().nonnegative().optional(),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

/** Anything on the webhooks queue: an event from a producer, or a delivery of the sender's. */
export const WebhookQueueMessageSchema = z.discriminatedUnion("kind", [
  EventMessageSchema,
  DeliveryMessageSchema,
]);
export type WebhookQueueMessage = z.infer<typeof WebhookQueueMessageSchema>;

/** The delivery message for a stored message id, for a round of delivery begun at `queuedAt`. */
export const deliveryMessage = (messageId: string, queuedAt: number): DeliveryMessage => ({
  v: 1,
  kind: "delivery",
  messageId,
  queuedAt,
});
