/**
 * Publishing a score (publish.ts) against the real ChallengeLeaderboard and D1, without the
 * runner: the score row is stored as the pipeline stores it, from the engine's breakdown.
 * Covers a score whose decimal does not terminate, queued exactly as the webhook contract
 * (`@bouts/contracts` EventMessageSchema) reads it — the webhook role's tests deliver that same
 * message (workers/webhooks/test/delivery-integration.test.ts); and a board of more than 100
 * entries, whose 101 events go out in batches the Queues limit allows, again on a repeat.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  eventMessage,
  MAX_BATCH_MESSAGES,
  WebhookQueueMessageSchema,
  type EventMessage,
} from "@bouts/contracts";
import { findScoringContext, scores, type Db } from "@bouts/db";
import { computeScore, parseFraction, SEED_ENGINEERING_EXAMPLE as SEED } from "@bouts/scoring";
import { publishScored } from "../src/publish.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** 17 of 21 static tests: the final score is 9469/120 = 78.908333…, which never terminates. */
function nonTerminatingBreakdown() {
  const categories = { ...SEED.static.categories, edge: { passed: 4, total: 7 } };
  // Graded by the heuristic panel, as the offline default grades: the webhook must say so.
  const heuristic = { kind: "heuristic" as const, method: "static analysis" };
  const r = computeScore({
    ...SEED,
    static: { passed: 17, total: 21, categories },
    codeQuality: { judges: SEED.codeQuality.judges.map((j) => ({ ...j, provenance: heuristic })) },
    deliverables: {
      items: SEED.deliverables.items.map((item) => ({
        ...item,
        judges: item.judges?.map((j) => ({ ...j, provenance: heuristic })),
      })),
    },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

/** Stores a score row for `submissionId` as the pipeline would (saveScore's columns). */
async function storeScore(
  d: Db,
  submissionId: string,
  b: ReturnType<typeof nonTerminatingBreakdown>,
) {
  const ctx = await findScoringContext(d, submissionId);
  if (!ctx) throw new Error("no context");
  await d.insert(scores).values({
    submissionId,
    challengeId: ctx.challenge.id,
    agentId: ctx.submission.agentId,
    iteration: ctx.submission.iteration,
    profile: b.profile,
    profileVersion: b.profileVersion,
    family: b.family,
    finalUnrounded: b.final.unrounded.text,
    finalFraction: b.final.unrounded.fraction,
    finalRounded: b.final.rounded,
    band: b.band.key,
    breakdown: JSON.stringify(b),
    input: "{}",
    humanReview: false,
    judgeMode: "offline",
    reportKey: `reports/${submissionId}.json`,
    submittedAt: ctx.submission.receivedAt,
    enteredAt: ctx.enteredAt,
    scoredAt: Date.now(),
  });
  return ctx;
}

/** Captures what publishing enqueues on WEBHOOKS, one array per sendBatch call. */
function captureBatches() {
  const batches: EventMessage[][] = [];
  vi.spyOn(env.WEBHOOKS, "sendBatch").mockImplementation((messages) => {
    const list = [...messages].map((m) => m.body as EventMessage);
    // The platform refuses a batch over the limit; so does this stand-in.
    if (list.length > MAX_BATCH_MESSAGES)
      return Promise.reject(new Error(`batch of ${list.length} exceeds ${MAX_BATCH_MESSAGES}`));
    batches.push(list);
    return Promise.resolve({} as QueueSendBatchResponse);
  });
  return batches;
}

describe("publishing a score", () => {
  it("queues a score whose decimal does not terminate, exactly, as the webhook contract reads it", async () => {
    const challenge = await seedChallenge("notes-api");
    const agentId = await seedAgent(challenge);
    const submissionId = await seedSubmission(challenge, agentId, "complete");
    const breakdown = nonTerminatingBreakdown();
    expect(breakdown.final.unrounded.text).toBe("78.908333…");
    const ctx = await storeScore(db(), submissionId, breakdown);

    const batches = captureBatches();
    await publishScored(env, db(), ctx);
    const events = batches.flat();
    expect(events.map((e) => e.type)).toEqual(["submission.scored"]);
    // The message the webhook role's delivery test sends on (the exact fraction, who judged).
    const ids = { challengeId: challenge.challengeId, submissionId, agentId };
    expect(events[0]).toEqual(
      eventMessage(
        "submission.scored",
        { ...ids, eventId: `evt_${submissionId}_scored` },
        {
          score: 79,
          unrounded: "78.908333…",
          fraction: "9469/120",
          band: "strong",
          judging: { panel: "heuristic", summary: breakdown.judging.summary },
          rank: 1,
          iteration: 1,
        },
      ),
    );
    expect(breakdown.judging.summary).toContain("offline heuristic panel");
    expect(parseFraction("9469/120")?.toFraction()).toBe(breakdown.final.unrounded.fraction);
    // As the webhook role's consumer reads it: unchanged.
    expect(WebhookQueueMessageSchema.parse(events[0])).toEqual(events[0]);
  });

  it("enqueues 101 events in batches of at most 100, and all of them again on a repeat", async () => {
    const challenge = await seedChallenge("notes-api");
    const board = env.LEADERBOARD.getByName(challenge.challengeId);
    // 105 agents at 50 on the board, each with one result.
    for (let i = 0; i < 105; i++) {
      const r = await board.recordResult({
        challengeId: challenge.challengeId,
        submissionId: `pre-${i}`,
        agentId: `rival-${i}`,
        score: 50,
        unrounded: "50",
        iteration: 1,
        enteredAt: 1_000,
        submittedAt: 2_000 + i,
        scoredAt: 3_000 + i,
        rankingMode: "latest",
        openedAt: challenge.publishedAt,
      });
      expect(r.ok).toBe(true);
    }
    const agentId = await seedAgent(challenge);
    const submissionId = await seedSubmission(challenge, agentId, "complete");
    const ctx = await storeScore(db(), submissionId, nonTerminatingBreakdown());

    const first = captureBatches();
    await publishScored(env, db(), ctx);
    expect(first.map((b) => b.length)).toEqual([100, 1]);
    const ids = first.flat().map((e) => e.eventId);
    expect(new Set(ids).size).toBe(101);
    expect(first.flat().filter((e) => e.type === "leaderboard.overtaken")).toHaveLength(100);

    // The message comes back (a later step failed): the board has applied the result, and
    // still answers the same overtaken list, so every event is enqueued again.
    vi.restoreAllMocks();
    const again = captureBatches();
    await publishScored(env, db(), ctx);
    expect(again.flat().map((e) => e.eventId)).toEqual(ids);
  });
});
