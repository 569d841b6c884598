import { describe, expect, it } from "vitest";
import {
  DeadLetterSchema,
  deliveryMessage,
  MAX_BATCH_MESSAGES,
  rescoreMessage,
  submissionMessage,
  SubmissionsQueueMessageSchema,
  toBatches,
  WebhookQueueMessageSchema,
} from "../src/queues.ts";

const ids = { submissionId: "sub_1", challengeId: "notes-api", agentId: "agent-1" };

describe("the submissions queue", () => {
  it("reads back what the constructors build", () => {
    const live = submissionMessage(ids);
    const rescore = rescoreMessage({ challengeId: "notes-api", version: 2, submissionId: "sub_1" });
    expect(live).toEqual({ v: 1, ...ids });
    expect(SubmissionsQueueMessageSchema.parse(live)).toEqual(live);
    expect(SubmissionsQueueMessageSchema.parse(rescore)).toEqual(rescore);
  });

  it("reads a submission by its id alone, dropping keys it does not know", () => {
    expect(SubmissionsQueueMessageSchema.parse({ v: 1, submissionId: "sub_1", x: 1 })).toEqual({
      v: 1,
      submissionId: "sub_1",
    });
  });

  it("never reads a malformed rescore as a submission to score", () => {
    const bad = { v: 1, kind: "rescore", challengeId: "c", version: 1, submissionId: "sub_1" };
    const parsed = SubmissionsQueueMessageSchema.safeParse(bad);
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toEqual(["version"]);
  });

  it("refuses a message without its id, naming it", () => {
    const parsed = SubmissionsQueueMessageSchema.safeParse({ nonsense: true });
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toContain("submissionId");
    expect(SubmissionsQueueMessageSchema.safeParse({ v: 1, kind: "event" }).success).toBe(false);
  });

  it("tells a dead letter of its own from a message", () => {
    const letter = {
      v: 1,
      kind: "dead-letter",
      reason: "malformed-message",
      detail: "submissionId: required",
      messageId: "m1",
      body: { nonsense: true },
    };
    expect(DeadLetterSchema.parse(letter)).toEqual(letter);
    expect(SubmissionsQueueMessageSchema.safeParse(letter).success).toBe(false);
  });
});

describe("the webhooks queue", () => {
  it("reads back a delivery", () => {
    const d = deliveryMessage("msg_1", 1_000);
    expect(WebhookQueueMessageSchema.parse(d)).toEqual(d);
  });
});

describe("toBatches", () => {
  it("cuts messages into sendBatch arguments of at most MAX_BATCH_MESSAGES, in order", () => {
    const messages = Array.from({ length: 2 * MAX_BATCH_MESSAGES + 1 }, (_, i) => i);
    const batches = toBatches(messages);
    expect(batches.map((b) => b.length)).toEqual([100, 100, 1]);
    expect(batches.flat().map((m) => m.body)).toEqual(messages);
    expect(toBatches([])).toEqual([]);
  });
});
