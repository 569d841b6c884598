/**
 * The webhook events' contract: one list of types that every other list and map follows, and
 * queue messages that a producer cannot build with a field missing. The `@ts-expect-error`
 * lines are the proof of the latter: `npm run typecheck` covers this file, and fails ("unused
 * '@ts-expect-error' directive") the day a producer could leave a field out.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  EVENT_DOCS,
  EVENT_TYPES,
  EventMessageSchema,
  eventMessage,
  ON_REQUEST_EVENT_TYPES,
  SUBSCRIBABLE_EVENT_TYPES,
  type EventMessage,
  type EventMessageData,
  type EventType,
  type SubscribableEventType,
  type WebhookEvent,
} from "../src/webhook-events.ts";
import { WebhookQueueMessageSchema } from "../src/queues.ts";

const ids = {
  eventId: "evt_sub_1_scored",
  agentId: "agent-1",
  challengeId: "notes-api",
  submissionId: "sub_1",
};

/** One complete message of each queued type, as its producer writes it. */
const complete = {
  "submission.scored": eventMessage("submission.scored", ids, {
    score: 68,
    unrounded: "67.543333…",
    fraction: "20263/300",
    band: "competent",
    judging: { panel: "heuristic", summary: "Judged by the offline heuristic panel." },
    rank: 2,
    iteration: 1,
  }),
  "submission.failed": eventMessage("submission.failed", ids, { reason: "run-timeout" }),
  "submission.rescored": eventMessage("submission.rescored", ids, {
    version: 2,
    previousVersion: 1,
    score: 68,
    fraction: "20263/300",
    previousScore: 82,
    previousFraction: "3283/40",
    band: "competent",
    previousRank: 1,
    rank: 2,
  }),
  "leaderboard.overtaken": eventMessage("leaderboard.overtaken", ids, {
    previousRank: 1,
    rank: 2,
    byScore: 88,
  }),
} satisfies Partial<Record<SubscribableEventType, EventMessage>>;

describe("the list of event types", () => {
  it("is the one list: subscribable and on-request types split it, in its order", () => {
    expect([...SUBSCRIBABLE_EVENT_TYPES, ...ON_REQUEST_EVENT_TYPES]).toEqual(EVENT_TYPES);
    expect(Object.keys(EVENT_DOCS)).toEqual(EVENT_TYPES);
  });

  it("is what the payloads and the queue messages are discriminated on", () => {
    expectTypeOf<WebhookEvent["type"]>().toEqualTypeOf<EventType>();
    expectTypeOf<EventMessage["type"]>().toEqualTypeOf<SubscribableEventType>();
    expectTypeOf<
      (typeof SUBSCRIBABLE_EVENT_TYPES)[number]
    >().toEqualTypeOf<SubscribableEventType>();
  });
});

describe("eventMessage", () => {
  it("builds what the sender's schema reads back unchanged", () => {
    for (const message of Object.values(complete)) {
      expect(EventMessageSchema.parse(message)).toEqual(message);
      expect(WebhookQueueMessageSchema.parse(message)).toEqual(message);
    }
  });

  it("does not compile when a producer leaves a field of the data out", () => {
    // Each line below is a compile error, which the directive expects; a field made optional
    // for producers would make the directive unused, and `npm run typecheck` would fail.
    const built = () => [
      // @ts-expect-error: `rank` is missing (the scored event's data needs every field).
      eventMessage("submission.scored", ids, {
        score: 68,
        unrounded: "67.5",
        fraction: "135/2",
        band: "competent",
        judging: null,
        iteration: 1,
      }),
      // @ts-expect-error: `fraction` is missing; only the sender may do without it (old messages).
      eventMessage("submission.scored", ids, {
        score: 68,
        unrounded: "67.5",
        band: "competent",
        judging: null,
        rank: 2,
        iteration: 1,
      }),
      // @ts-expect-error: `judging` is missing; `null` says "not recorded", absence is an error.
      eventMessage("submission.scored", ids, {
        score: 68,
        unrounded: "67.5",
        fraction: "135/2",
        band: "competent",
        rank: 2,
        iteration: 1,
      }),
      // @ts-expect-error: `reason` is missing.
      eventMessage("submission.failed", ids, {}),
      // @ts-expect-error: `previousFraction` is missing.
      eventMessage("submission.rescored", ids, {
        version: 2,
        previousVersion: 1,
        score: 68,
        fraction: "135/2",
        previousScore: 82,
        band: "competent",
        previousRank: 1,
        rank: 2,
      }),
      // @ts-expect-error: `byScore` is missing.
      eventMessage("leaderboard.overtaken", ids, { previousRank: 1, rank: 2 }),
      // @ts-expect-error: the data of another event type.
      eventMessage("leaderboard.overtaken", ids, { reason: "run-timeout" }),
      // @ts-expect-error: `webhook.test` is never queued.
      eventMessage("webhook.test", ids, { endpointId: "wh_1", message: "hi" }),
    ];
    expect(built).toBeTypeOf("function");
    expectTypeOf<keyof EventMessageData<"submission.failed">>().toEqualTypeOf<"reason">();
    expectTypeOf<EventMessageData<"submission.scored">["fraction"]>().toEqualTypeOf<string>();
  });
});

describe("EventMessageSchema", () => {
  const scored = complete["submission.scored"];

  it("reads a message queued before a field existed, and drops keys it does not know", () => {
    const { fraction: _f, judging: _j, unrounded: _u, iteration: _i, ...old } = scored.data;
    const parsed = EventMessageSchema.parse({ ...scored, data: { ...old, extra: 1 } });
    expect(parsed.data).toEqual(old);
  });

  it("reads an unreadable judging record as none, never as a model's", () => {
    for (const judging of ["model", { panel: "oracle", summary: "x" }])
      expect(EventMessageSchema.parse({ ...scored, data: { ...scored.data, judging } })).toEqual({
        ...scored,
        data: { ...scored.data, judging: null },
      });
  });

  it("refuses a message without a field its sender needs, naming it", () => {
    const { score: _s, ...rest } = scored.data;
    const parsed = EventMessageSchema.safeParse({ ...scored, data: rest });
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toEqual(["data.score"]);
    expect(EventMessageSchema.safeParse({ ...scored, type: "webhook.test" }).success).toBe(false);
  });
});
