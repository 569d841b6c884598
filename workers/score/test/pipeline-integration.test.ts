import { env } from "cloudflare:workers";
import {
  createMessageBatch,
  createExecutionContext,
  getQueueResult,
  runInDurableObject,
} from "cloudflare:test";
import { BreakdownSchema, ScoreInputSchema } from "@bouts/contracts";
import { computeInterval, computeScore } from "@bouts/scoring";
import {
  entries,
  findScore,
  findScoringContext,
  scoreComponents,
  submissionRejudges,
  submissions,
  testCounts,
} from "@bouts/db";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  claimScoringLeaseForTest,
  consumeDeadSubmissions,
  consumeSubmissions,
  processSubmission,
  reconcileScoring,
  RETRY_WINDOW_MS,
  type ConsumerEnv,
  type ScoreEnv,
} from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const scoreEnv = () => env as unknown as ConsumerEnv;
/** The score role's env with the runner answering 503 to everything. */
const runnerDown = (): ScoreEnv => ({
  ...scoreEnv(),
  RUNNER_HTTP: {
    fetch: () => Promise.resolve(new Response("busy", { status: 503 })),
  } as unknown as Fetcher,
});
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
    // The 95 % interval, seeded by the submission id, redrawn identically from the breakdown.
    expect(breakdown.interval).toMatchObject({
      level: 95,
      seed: `submission:${ids.complete!}`,
      method: "stratified-bootstrap/v1",
    });
    const redrawn = computeInterval(breakdown, { seed: breakdown.interval!.seed });
    expect(redrawn.ok && redrawn.value.interval).toEqual(breakdown.interval);
    expect(breakdown.interval!.low.value).toBeLessThanOrEqual(breakdown.final.unrounded.value);
    expect(breakdown.interval!.high.value).toBeGreaterThanOrEqual(breakdown.final.unrounded.value);
    // The verdicts on the suite's tests, for the board's paired comparison: the stored input
    // lists them by id, the breakdown only as bits, and re-scoring the input gives the same.
    const input = ScoreInputSchema.parse(JSON.parse(score!.input));
    const tests = input.profile === "engineering" ? input.static.tests : undefined;
    expect(tests?.length).toBe(input.profile === "engineering" ? input.static.total : -1);
    expect(breakdown.pairing).toMatchObject({ method: "paired-normal/v1" });
    expect(breakdown.pairing!.strata[0]!.key).toMatch(/^static:/);
    expect(JSON.stringify(breakdown.pairing)).not.toContain(tests![0]!.id);
    const again = computeScore(input);
    expect(again.ok && again.value.pairing).toEqual(breakdown.pairing);
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
    // The board holds the breakdown's 95 % interval and ranks from it.
    const cb = BreakdownSchema.parse(JSON.parse(complete!.breakdown));
    expect(standing!.interval).toEqual({
      low: cb.interval!.low.value,
      high: cb.interval!.high.value,
    });
    expect(standing!.rankRange.best).toBe(1);
    expect(standing!.rankRange.worst).toBeGreaterThanOrEqual(1);
    // Every solution faced the same suite, so the board can compare them pairwise.
    const pb = BreakdownSchema.parse(JSON.parse(partial!.breakdown));
    expect(pb.pairing!.suite).toBe(cb.pairing!.suite);
    const held = await runInDurableObject(
      env.LEADERBOARD.getByName(challenge.challengeId),
      (_o, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pairing_profiles").one().n,
    );
    expect(held).toBe(3);
  });

  it("changes nothing when the message is delivered again", async () => {
    const send = vi.spyOn(env.WEBHOOKS, "sendBatch");
    const before = await findScore(db(), ids.complete!);
    expect((await statusOf(ids.complete!)).publishedAt).not.toBeNull();
    const again = await processSubmission(scoreEnv(), ids.complete!, now);
    expect(again).toMatchObject({ action: "ack", note: "already published" });
    expect(await findScore(db(), ids.complete!)).toEqual(before);
    expect(send).not.toHaveBeenCalled();
    send.mockRestore();
  });

  it("measures time to final from the entry into the submission's own challenge", async () => {
    // The agent entered this challenge a minute ago and another one just now, and submits to
    // both: each submission's clock starts at its own challenge's entry, whatever the row order.
    const other = await seedChallenge("deep-merge");
    const agent = await seedAgent(challenge);
    const justNow = Date.now();
    await db()
      .insert(entries)
      .values({ agentId: agent, challengeId: other.challengeId, enteredAt: justNow });
    const here = await seedSubmission(challenge, agent, "complete");
    const there = await seedSubmission(other, agent, "complete");
    const own = await db().select().from(entries).where(eq(entries.agentId, agent)).all();
    const enteredHere = own.find((e) => e.challengeId === challenge.challengeId)!.enteredAt;
    expect(enteredHere).toBeLessThan(justNow);
    expect((await findScoringContext(db(), here))!.enteredAt).toBe(enteredHere);
    expect((await findScoringContext(db(), there))!.enteredAt).toBe(justNow);
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

  it("announces a failure after an operator's rejudge as a new event, not a repeat of the first", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, new TextEncoder().encode("not an archive"));
    await db().insert(submissionRejudges).values({
      id: crypto.randomUUID(),
      submissionId: id,
      operatorId: challenge.operatorId,
      reason: "runner fleet was down",
      previousFailureCode: "infrastructure",
      previousFailureReason: "scoring could not complete",
      requestedAt: Date.now(),
    });
    const send = vi.spyOn(env.WEBHOOKS, "send");
    expect((await processSubmission(scoreEnv(), id, now)).action).toBe("ack");
    expect(send.mock.calls.map(([m]) => (m as { eventId: string }).eventId)).toEqual([
      `evt_${id}_failed_r1`,
    ]);
    send.mockRestore();
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

  it("waits with the reason while the runner is down, retrying with capped backoff for a day, then fails as infrastructure", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    const delays: number[] = [];
    for (let i = 0; i < 9; i++) {
      const outcome = await processSubmission(runnerDown(), id, now);
      expect(outcome.action).toBe("retry");
      if (outcome.action === "retry") delays.push(outcome.delaySeconds);
    }
    expect(delays).toEqual([30, 60, 120, 240, 480, 960, 1800, 1800, 1800]);
    const waiting = await statusOf(id);
    expect(waiting).toMatchObject({ status: "waiting", failureCode: null });
    expect(waiting.waitingReason).toMatch(/runner answered 503/);
    expect(waiting.retryAt).toBeGreaterThan(Date.now());
    // A day after the first failure, the next failed attempt gives up, as infrastructure.
    await db()
      .update(submissions)
      .set({ waitingSince: Date.now() - RETRY_WINDOW_MS - 1 })
      .where(eq(submissions.id, id));
    const send = vi.spyOn(env.WEBHOOKS, "send");
    expect((await processSubmission(runnerDown(), id, now)).action).toBe("ack");
    const row = await statusOf(id);
    expect(row).toMatchObject({ status: "failed", failureCode: "infrastructure" });
    expect(row.failureReason).toMatch(/re-judge/);
    expect(row.publishedAt).not.toBeNull();
    expect(send.mock.calls.map(([m]) => (m as { eventId: string }).eventId)).toContain(
      `evt_${id}_failed`,
    );
    send.mockRestore();
  });

  it("retries a runner that cannot be reached within seconds, then after half its waiting so far", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    const unreachable: ScoreEnv = {
      ...scoreEnv(),
      RUNNER_HTTP: {
        fetch: () => Promise.reject(new Error("Network connection lost.")),
      } as unknown as Fetcher,
    };
    // The runner was killed mid-run (npm start restarts it within seconds): back in 5 s.
    expect(await processSubmission(unreachable, id, now)).toMatchObject({
      action: "retry",
      delaySeconds: 5,
    });
    expect((await statusOf(id)).waitingReason).toMatch(/could not be reached/);
    // Still down after ten minutes: asked every five.
    await db()
      .update(submissions)
      .set({ waitingSince: Date.now() - 10 * 60_000 })
      .where(eq(submissions.id, id));
    const later = await processSubmission(unreachable, id, now);
    expect(later.action).toBe("retry");
    expect(later.action === "retry" && later.delaySeconds).toBeGreaterThanOrEqual(300);
    expect(later.action === "retry" && later.delaySeconds).toBeLessThanOrEqual(305);
  });

  it("gives up on a runner that never answers within its deadline, and waits", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    const hung = {
      ...scoreEnv(),
      RUNNER_TIMEOUT_MS: "200",
      RUNNER_HTTP: { fetch: () => new Promise<Response>(() => {}) } as unknown as Fetcher,
    };
    const outcome = await processSubmission(hung, id, now);
    expect(outcome).toMatchObject({ action: "retry", delaySeconds: 30 });
    const row = await statusOf(id);
    expect(row.status).toBe("waiting");
    expect(row.waitingReason).toMatch(/did not answer within 200 ms/);
  });

  it("processes the messages of a batch concurrently", async () => {
    let inFlight = 0;
    let most = 0;
    const slow = {
      ...scoreEnv(),
      RUNNER_HTTP: {
        fetch: async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 300));
          inFlight -= 1;
          return new Response("busy", { status: 503 });
        },
      } as unknown as Fetcher,
    };
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(await seedSubmission(challenge, await seedAgent(challenge), "complete"));
    const batch = createMessageBatch(
      "bouts-submissions",
      ids.map((submissionId, i) => ({
        id: `m${i}`,
        timestamp: new Date(),
        attempts: 1,
        body: { v: 1, submissionId },
      })),
    );
    await consumeSubmissions(batch, slow);
    expect(most).toBe(3);
  });

  it("leaves a submission another consumer holds alone", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    expect(await claimScoringLeaseForTest(id)).toBe(true);
    const outcome = await processSubmission(scoreEnv(), id, now);
    expect(outcome.action).toBe("retry");
    expect(outcome.note).toBe("another consumer holds the lease");
  });

  it("re-queues a submission whose worker died, and fails dead letters only past the retry window", async () => {
    const agent = await seedAgent(challenge);
    const id = await seedSubmission(challenge, agent, "complete");
    expect(await claimScoringLeaseForTest(id)).toBe(true);
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const swept = await reconcileScoring(
      { ...scoreEnv(), SUBMISSIONS: env.SUBMISSIONS },
      Date.now() + 60 * 60 * 1000,
    );
    expect(swept.requeuedRunning).toBeGreaterThanOrEqual(1);
    expect(send.mock.calls.some(([m]) => (m as { submissionId: string }).submissionId === id)).toBe(
      true,
    );
    send.mockRestore();

    const letter = () =>
      createMessageBatch("bouts-submissions-dlq", [
        { id: "m1", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: id } },
      ]);
    // Still inside its retry window: left to the reconciler, not failed.
    await consumeDeadSubmissions(letter(), scoreEnv());
    expect((await statusOf(id)).status).toBe("running");
    await consumeDeadSubmissions(letter(), scoreEnv(), () => Date.now() + RETRY_WINDOW_MS + 1);
    const row = await statusOf(id);
    expect(row).toMatchObject({ status: "failed", failureCode: "infrastructure" });
    expect((await findScoringContext(db(), id))!.submission.failureReason).toMatch(/not scored/);
  });

  it("dead-letters a malformed message with its reason instead of dropping it", async () => {
    const dlq = vi.spyOn(env.SUBMISSIONS_DLQ, "send");
    const batch = createMessageBatch("bouts-submissions", [
      { id: "bad", timestamp: new Date(), attempts: 1, body: { nonsense: true } },
    ]);
    const ctx = createExecutionContext();
    await consumeSubmissions(batch, scoreEnv());
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["bad"]);
    expect(dlq).toHaveBeenCalledWith(
      expect.objectContaining({
        kind: "dead-letter",
        reason: "malformed-message",
        messageId: "bad",
        body: { nonsense: true },
        detail: expect.stringMatching(/submissionId/) as unknown,
      }),
    );
    dlq.mockRestore();
  });

  it("acks bad letters on the dead-letter queue without throwing", async () => {
    const batch = createMessageBatch<unknown>("bouts-submissions-dlq", [
      {
        id: "own",
        timestamp: new Date(),
        attempts: 1,
        body: {
          v: 1,
          kind: "dead-letter",
          reason: "malformed-message",
          detail: "x",
          messageId: "bad",
          body: 1,
        },
      },
      { id: "garbage", timestamp: new Date(), attempts: 1, body: "not json at all" },
      { id: "unknown", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: "nope" } },
    ]);
    const ctx = createExecutionContext();
    await expect(consumeDeadSubmissions(batch, scoreEnv())).resolves.toBeUndefined();
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["garbage", "own", "unknown"]);
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
    // "b" is dead-lettered with its reason, then acked.
    expect(result.explicitAcks.sort()).toEqual(["b", "c"]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["a"]);
  });
});
