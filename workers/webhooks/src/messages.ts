/**
 * @module webhooks-worker/messages
 * The shapes on the `bouts-webhooks` queue (docs/storage-schema.md): an `event` from the score
 * role, fanned out into one `delivery` per subscribed endpoint. Parsed with zod at the edge.
 */
import { z } from "zod";

/** An event as a producer enqueues it (workers/score `ScoreEventMessage`). */
export const EventMessageSchema = z.object({
  v: z.literal(1),
  kind: z.literal("event"),
  eventId: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/),
  type: z.enum([
    "submission.scored",
    "submission.failed",
    "submission.rescored",
    "leaderboard.overtaken",
  ]),
  agentId: z.string().min(1),
  challengeId: z.string().min(1),
  submissionId: z.string().min(1),
  data: z.record(z.string(), z.unknown()),
});
export type EventMessage = z.infer<typeof EventMessageSchema>;

/**
 * One stored message (`webhook_messages.id`) to deliver to its endpoint. `queuedAt` (ms) is
 * when this round of delivery began (the fan-out, or a manual redelivery): a dead letter older
 * than the message's last redelivery is stale. Absent on messages queued before it existed.
 */
export const DeliveryMessageSchema = z.object({
  v: z.literal(1),
  kind: z.literal("delivery"),
  messageId: z.string().min(1),
  queuedAt: z.number().int().nonnegative().optional(),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

/** Anything on the webhooks queue. */
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
