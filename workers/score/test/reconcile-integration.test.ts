/**
 * The reconciler (cron): each stranded state is found and completed, and completing it again
 * changes nothing. Times are moved forward through `now` instead of waiting.
 */
import { env } from "cloudflare:workers";
import { submissions } from "@bouts/db";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  processSubmission,
  reconcileScoring,
  RETRY_WINDOW_MS,
  type LeaderboardRecorder,
  type ScoreEnv,
} from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const scoreEnv = () => env as unknown as ScoreEnv & { SUBMISSIONS: Queue };
const rowOf = async (id: string) =>
  (await db().select().from(submissions).where(eq(submissions.id, id)).get())!;
const HOUR = 60 * 60 * 1000;
const sentTo = (spy: { mock: { calls: unknown[][] } }, key: string, value: string) =>
  spy.mock.calls.some(([m]) => (m as Record<string, unknown>)[key] === value);

describe("reconciling stranded submissions", () => {
  let challenge: Awaited<ReturnType<typeof seedChallenge>>;
  beforeAll(async () => {
    challenge = await seedChallenge("deep-merge");
  });

  it("re-queues a queued submission whose message was lost, once per grace period", async () => {
    const id = await seedSubmission(challenge, await seedAgent(challenge), "complete");
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const later = Date.now() + HOUR;
    expect((await reconcileScoring(scoreEnv(), later)).requeuedQueued).toBeGreaterThanOrEqual(1);
    expect(sentTo(send, "submissionId", id)).toBe(true);
    expect((await rowOf(id)).retryAt).toBe(later);
    send.mockClear();
    await reconcileScoring(scoreEnv(), later + 60_000);
    expect(sentTo(send, "submissionId", id)).toBe(false);
    send.mockRestore();
  });

  it("re-queues a waiting submission whose retry was lost, and fails it past the retry window", async () => {
    const id = await seedSubmission(challenge, await seedAgent(challenge), "complete");
    const down = {
      ...scoreEnv(),
      RUNNER_HTTP: {
        fetch: () => Promise.resolve(new Response("busy", { status: 503 })),
      } as unknown as Fetcher,
    };
    expect((await processSubmission(down, id, Date.now)).action).toBe("retry");
    expect((await rowOf(id)).status).toBe("waiting");
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const swept = await reconcileScoring(scoreEnv(), Date.now() + HOUR);
    expect(swept.requeuedWaiting).toBeGreaterThanOrEqual(1);
    expect(sentTo(send, "submissionId", id)).toBe(true);
    send.mockRestore();
    expect((await rowOf(id)).status).toBe("waiting");

    const events = vi.spyOn(env.WEBHOOKS, "send");
    await reconcileScoring(scoreEnv(), Date.now() + RETRY_WINDOW_MS + 2 * HOUR);
    expect(await rowOf(id)).toMatchObject({ status: "failed", failureCode: "infrastructure" });
    expect(sentTo(events, "eventId", `evt_${id}_failed`)).toBe(true);
    events.mockRestore();
  });

  it("ranks and announces a score the leaderboard outage left unpublished", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    const boardDown = {
      ...scoreEnv(),
      LEADERBOARD: {
        getByName: (): LeaderboardRecorder => ({
          recordResult: () => Promise.reject(new Error("Durable Object unavailable")),
          recordBaseline: () => Promise.reject(new Error("Durable Object unavailable")),
        }),
      },
    };
    await expect(processSubmission(boardDown, id, Date.now)).rejects.toThrow(/unavailable/);
    expect(await rowOf(id)).toMatchObject({ status: "scored", publishedAt: null });

    const batch = vi.spyOn(env.WEBHOOKS, "sendBatch");
    const swept = await reconcileScoring(scoreEnv(), Date.now() + HOUR);
    expect(swept.publishedScores).toBeGreaterThanOrEqual(1);
    const sent = batch.mock.calls.flatMap(([m]) => m as { body: { eventId: string } }[]);
    expect(sent.map((m) => m.body.eventId)).toContain(`evt_${id}_scored`);
    batch.mockRestore();
    expect((await rowOf(id)).publishedAt).not.toBeNull();
    const standing = await env.LEADERBOARD.getByName(challenge.challengeId).getStanding(agent);
    expect(standing).toMatchObject({ rank: expect.any(Number) as unknown });
    // Done: a second run publishes it no more.
    const again = vi.spyOn(env.WEBHOOKS, "sendBatch");
    await reconcileScoring(scoreEnv(), Date.now() + 2 * HOUR);
    expect(again).not.toHaveBeenCalled();
    again.mockRestore();
  });

  it("sends the failure event that a queue outage lost after the row was failed", async () => {
    const id = await seedSubmission(
      challenge,
      await seedAgent(challenge),
      new TextEncoder().encode("this is not an archive"),
    );
    const queueDown = {
      ...scoreEnv(),
      WEBHOOKS: {
        send: () => Promise.reject(new Error("queue unavailable")),
        sendBatch: () => Promise.reject(new Error("queue unavailable")),
      } as unknown as Queue,
    };
    await expect(processSubmission(queueDown, id, Date.now)).rejects.toThrow(/queue unavailable/);
    expect(await rowOf(id)).toMatchObject({
      status: "failed",
      failureCode: "archive-refused",
      publishedAt: null,
    });

    const events = vi.spyOn(env.WEBHOOKS, "send");
    const swept = await reconcileScoring(scoreEnv(), Date.now() + HOUR);
    expect(swept.publishedFailures).toBeGreaterThanOrEqual(1);
    expect(sentTo(events, "eventId", `evt_${id}_failed`)).toBe(true);
    events.mockRestore();
    expect((await rowOf(id)).publishedAt).not.toBeNull();
  });
});
