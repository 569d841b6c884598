/**
 * @module webhooks/events
 * The builders of event payloads, whose schemas and list of types `@bouts/contracts` owns
 * (webhook-events.ts; re-exported here). Envelope per the Standard Webhooks convention:
 * `{ type, timestamp, data }`. Pure: `now` is an argument.
 *
 * Invariants:
 * - Every payload schema is strict, so a builder refuses any field it does not know — a payload
 *   can carry only its recipient's own data, never another agent's identity or a secret.
 * - The serialized body is produced once ({@link serializeEvent}) and that exact string is
 *   signed, sent and logged.
 */
import {
  WebhookEventSchema,
  type EventData,
  type EventType,
  type LeaderboardOvertakenData,
  type SubmissionFailedData,
  type SubmissionRescoredData,
  type SubmissionScoredData,
  type WebhookEvent,
} from "@bouts/contracts";
import { err, ok, type Result } from "@bouts/result";

export {
  buildWebhookScore,
  EVENT_TYPES,
  EventTypeSchema,
  LeaderboardOvertakenDataSchema,
  SUBSCRIBABLE_EVENT_TYPES,
  SubmissionFailedDataSchema,
  SubmissionRescoredDataSchema,
  SubmissionScoredDataSchema,
  UNROUNDED_DECIMALS,
  WebhookEventSchema,
  WebhookJudgingSchema,
  WebhookScoreSchema,
  WebhookTestDataSchema,
  type EventData,
  type EventType,
  type LeaderboardOvertakenData,
  type SubmissionFailedData,
  type SubmissionRescoredData,
  type SubmissionScoredData,
  type WebhookEvent,
  type WebhookJudging,
  type WebhookScore,
  type WebhookTestData,
} from "@bouts/contracts";

/** Why an event could not be built: the fields that failed, as zod reported them. */
export type EventError = {
  reason: "invalid-event";
  type: string;
  issues: { path: string; message: string }[];
};

// ─── Builders ───

/**
 * Builds an event of `type` stamped with `now`, validating `data` against its strict schema.
 * @example
 * buildEvent("webhook.test", { endpointId: "ep_1", message: "hello" }, new Date())
 */
export function buildEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  now: Date,
): Result<Extract<WebhookEvent, { type: T }>, EventError> {
  return parseWebhookEvent({ type, timestamp: now.toISOString(), data }) as Result<
    Extract<WebhookEvent, { type: T }>,
    EventError
  >;
}

/** Builds `submission.scored` for the submitting agent. */
export const buildSubmissionScoredEvent = (data: SubmissionScoredData, now: Date) =>
  buildEvent("submission.scored", data, now);

/** Builds `submission.failed` for the submitting agent. */
export const buildSubmissionFailedEvent = (data: SubmissionFailedData, now: Date) =>
  buildEvent("submission.failed", data, now);

/** Builds `submission.rescored` for the submitting agent. */
export const buildSubmissionRescoredEvent = (data: SubmissionRescoredData, now: Date) =>
  buildEvent("submission.rescored", data, now);

/** Builds `leaderboard.overtaken` for the agent whose rank dropped. */
export const buildLeaderboardOvertakenEvent = (data: LeaderboardOvertakenData, now: Date) =>
  buildEvent("leaderboard.overtaken", data, now);

/** Builds the `webhook.test` event sent by "send a test event". */
export const buildWebhookTestEvent = (endpointId: string, now: Date) =>
  buildEvent(
    "webhook.test",
    { endpointId, message: "Test event from Bouts: your endpoint is reachable." },
    now,
  );

/** Parses an untrusted value (e.g. a JSON-decoded body) as a webhook event. */
export function parseWebhookEvent(value: unknown): Result<WebhookEvent, EventError> {
  const parsed = WebhookEventSchema.safeParse(value);
  if (parsed.success) return ok(parsed.data);
  const type =
    typeof value === "object" && value !== null && "type" in value ? String(value.type) : "";
  return err({
    reason: "invalid-event",
    type,
    issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
  });
}

/** Serializes an event to the body string that is signed and sent (compact JSON). */
export function serializeEvent(event: WebhookEvent): string {
  return JSON.stringify(event);
}
