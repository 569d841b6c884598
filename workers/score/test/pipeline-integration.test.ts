import { env } from "cloudflare:workers";
import { createMessageBatch, createExecutionContext, getQueueResult } from "cloudflare:test";
import { BreakdownSchema } from "@bouts/contracts";
import { findScore, findScoringContext, scoreComponents, submissions, testCounts } from "@bouts/db";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  claimScoringLeaseForTest,
  consumeDeadSubmissions,
  consumeSubmissions,
  processSubmission,
  sweepScoring,
  type ScoreEnv,
} from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const scoreEnv = () => env as unknown as ScoreEnv;
const now = () => Date.now();
const statusOf = async (id: string) =>
  (await db().select().from(submissions).where(eq(submissions.id, id)).get())!;

describe("scoring the notes-api example submissions end to end", () => {
  let challenge: Awaited<ReturnType<typeof seedChallenge>>;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    challenge = await seedChallenge("notes-api");
    for (const which of ["complete", "partial", "insecure"]) {
      const agent = await seedAgent(challenge);
      ids[which] = await seedSubmission(challenge, agent, which);
      const outcome = await processSubmission(scoreEnv(), ids[which], now);
      expect(outcome.action, outcome.note).toBe("ack");
    }
  });

  it("stores a valid breakdown with every part in one go", async () => {
    const score = await findScore(db(), ids.complete!);
    expect(score).not.toBeNull();
    const breakdown = BreakdownSchema.parse(JSON.parse(score!.breakdown));
    expect(breakdown.components.map((c) => c.key)).toEqual([
      "static",
      "adversarial",
      "codeQuality",
      "deliverables",
      "security",
      "stability",
    ]);
    expect(score!.finalRounded).toBe(breakdown.final.rounded);
    expect(score!.judgeMode).toBe("offline");
    expect((await statusOf(ids.complete!)).status).toBe("scored");
    expect(
      await db()
        .select()
        .from(scoreComponents)
        .where(eq(scoreComponents.submissionId, ids.complete!))
        .all(),
    ).toHaveLength(6);
    const counts = await db()
      .select()
      .from(testCounts)
      .where(eq(testCounts.submissionId, ids.complete!))
      .all();
    expect(counts.find((c) => c.suite === "static" && c.bucket === "functionality")).toMatchObject({
      passed: 4,
      total: 4,
    });
    expect(await env.ARTIFACTS.head(score!.reportKey)).not.toBeNull();
  });

  it("ranks the complete solution above the partial one and caps the insecure one at 75", async () => {
    const [complete, partial, insecure] = await Promise.all(
      ["complete", "partial", "insecure"].map((w) => findScore(db(), ids[w]!)),
    );
    expect(complete!.finalRounded).toBeGreaterThan(partial!.finalRounded);
    expect(insecure!.finalRounded).toBeLessThanOrEqual(75);
    const b = BreakdownSchema.parse(JSON.parse(insecure!.breakdown));
    expect(b.components.find((c) => c.key === "security")!.score.value).toBeLessThan(100);
    const standing = await env.LEADERBOARD.getByName(challenge.challengeId).getStanding(
      complete!.agentId,
    );
    expect(standing).toMatchObject({ rank: 1, iterations: 1, trajectoryClass: "one-shot" });
  });

  it("changes nothing when the message is delivered again", async () => {
    const send = vi.spyOn(env.WEBHOOKS, "sendBatch");
    const before = await findScore(db(), ids.complete!);
    const again = await processSubmission(scoreEnv(), ids.complete!, now);
    expect(again).toMatchObject({ action: "ack", note: "already scored; publishing repeated" });
    expect(await findScore(db(), ids.complete!)).toEqual(before);
    // The repeated events carry the same ids, so receivers dedupe them.
    const sent = send.mock.calls.at(-1)![0] as { body: { eventId: string } }[];
    expect(sent[0]!.body.eventId).toBe(`evt_${ids.complete!}_scored`);
    send.mockRestore();
  });
});

describe("failures", () => {
  let challenge: Awaited<ReturnType<typeof seedChallenge>>;
  beforeAll(async () => {
    challenge = await seedChallenge("deep-merge");
  });

  it("fails a submission whose archive the runner refuses, with the reason", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(
      challenge,
      agent,
      new TextEncoder().encode("this is not an archive"),
    );
    const outcome = await processSubmission(scoreEnv(), id, now);
    expect(outcome.action).toBe("ack");
    const row = await statusOf(id);
    expect(row.status).toBe("failed");
    expect(row.failureReason).toMatch(/runner refused the archive/);
    expect(row.failureCode).toBe("archive-refused");
  });

  it("fails a submission whose stored archive is not the one uploaded, without retrying or running it", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    const row = await statusOf(id);
    // Swap the stored object for another valid archive: same key, other bytes.
    const other = await env.ARTIFACTS.get(
      (await statusOf(await seedSubmission(challenge, await seedAgent(challenge), "partial")))
        .artifactKey,
    );
    await env.ARTIFACTS.put(row.artifactKey, await other!.arrayBuffer());
    const runner = vi.fn(() => Promise.resolve(new Response("unused", { status: 500 })));
    const watched = { ...scoreEnv(), RUNNER_HTTP: { fetch: runner } as unknown as Fetcher };
    const outcome = await processSubmission(watched, id, now);
    expect(outcome.action).toBe("ack");
    expect(runner).not.toHaveBeenCalled();
    const failed = await statusOf(id);
    expect(failed).toMatchObject({ status: "failed", failureCode: "artifact-integrity" });
    expect(failed.failureReason).toContain(row.artifactSha256);
  });

  it("fails a submission whose archive is missing from storage as an integrity failure", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    await env.ARTIFACTS.delete((await statusOf(id)).artifactKey);
    expect((await processSubmission(scoreEnv(), id, now)).action).toBe("ack");
    expect(await statusOf(id)).toMatchObject({
      status: "failed",
      failureCode: "artifact-integrity",
      failureReason: "the submitted archive is no longer stored",
    });
  });

  it("charges the run's runner time to the agent once, however often the message comes", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    expect((await processSubmission(scoreEnv(), id, now)).action).toBe("ack");
    expect((await processSubmission(scoreEnv(), id, now)).action).toBe("ack");
    const { results } = await env.DB.prepare(
      "SELECT run_id, kind, agent_id, challenge_id, runner_ms FROM runner_usage WHERE submission_id = ?",
    )
      .bind(id)
      .all<{
        run_id: string;
        kind: string;
        agent_id: string;
        challenge_id: string;
        runner_ms: number;
      }>();
    expect(results).toHaveLength(1);
    const report = JSON.parse(await (await env.ARTIFACTS.get(`reports/${id}.json`))!.text()) as {
      timings: { totalMs: number };
    };
    expect(results[0]).toMatchObject({
      run_id: `${id}-1`,
      kind: "run",
      agent_id: agent,
      challenge_id: challenge.challengeId,
      runner_ms: Math.round(report.timings.totalMs),
    });
    expect(results[0]!.runner_ms).toBeGreaterThan(0);
  });

  it("retries with backoff while the runner is down, then fails after the last attempt", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    const down = {
      ...scoreEnv(),
      RUNNER_HTTP: {
        fetch: () => Promise.resolve(new Response("busy", { status: 503 })),
      } as unknown as Fetcher,
    };
    const first = await processSubmission(down, id, now);
    expect(first).toMatchObject({ action: "retry", delaySeconds: 10 });
    expect((await statusOf(id)).status).toBe("running");
    let last = first;
    for (let i = 0; i < 4; i++) last = await processSubmission(down, id, now);
    expect(last.action).toBe("ack");
    const row = await statusOf(id);
    expect(row.status).toBe("failed");
    expect(row.failureReason).toMatch(/after 5 attempts/);
    expect(row.failureCode).toBe("infrastructure");
  });

  it("leaves a submission another consumer holds alone", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    expect(await claimScoringLeaseForTest(id)).toBe(true);
    const outcome = await processSubmission(scoreEnv(), id, now);
    expect(outcome.action).toBe("retry");
    expect(outcome.note).toBe("another consumer holds the lease");
  });

  it("re-queues a submission whose worker died, and fails dead letters visibly", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    expect(await claimScoringLeaseForTest(id)).toBe(true);
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const swept = await sweepScoring(
      { ...scoreEnv(), SUBMISSIONS: env.SUBMISSIONS },
      Date.now() + 60 * 60 * 1000,
    );
    expect(swept.requeued).toBeGreaterThanOrEqual(1);
    expect(send.mock.calls.some(([m]) => (m as { submissionId: string }).submissionId === id)).toBe(
      true,
    );
    send.mockRestore();

    const dead = createMessageBatch("bouts-submissions-dlq", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: id } },
    ]);
    await consumeDeadSubmissions(dead, scoreEnv());
    const row = await statusOf(id);
    expect(row.status).toBe("failed");
    expect((await findScoringContext(db(), id))!.submission.failureReason).toMatch(/not scored/);
  });

  it("acks or retries each message of a batch on its own", async () => {
    const agent = await seedAgent(challenge);
    const held = await seedSubmission(challenge, agent, "complete");
    await claimScoringLeaseForTest(held);
    const batch = createMessageBatch("bouts-submissions", [
      { id: "a", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: held } },
      { id: "b", timestamp: new Date(), attempts: 1, body: { nonsense: true } },
      { id: "c", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: "sub_unknown" } },
    ]);
    const ctx = createExecutionContext();
    await consumeSubmissions(batch, scoreEnv());
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["b", "c"]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["a"]);
  });
});
