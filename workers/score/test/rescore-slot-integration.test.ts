/**
 * The rescore lane under concurrency (docs/design.md §30, §35): of concurrent claims at most
 * RESCORE_CONCURRENCY (1) takes a lease, a rescore of a discarded version never starts, and one
 * that was running when its version was discarded writes no outcome and frees the lane.
 * Checked on the D1 claim itself and through `processRescore` with a fake runner that records
 * how many runs overlap (the real runner is not needed: the lane is decided before it is called).
 */
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import {
  challenges,
  challengeVersions,
  claimRescore,
  findRescore,
  rescores,
  scores,
  settleRescore,
  submissions,
  type RescoreKey,
} from "@bouts/db";
import { LEASE_MS, processRescore, RESCORE_CONCURRENCY, type ScoreEnv } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const RESCORES = 5;

/** A challenge with a candidate version 2 being rescored, and RESCORES queued rescores of it. */
async function seedRescoring(): Promise<{ challengeId: string; keys: RescoreKey[] }> {
  const ch = await seedChallenge("notes-api");
  const now = Date.now();
  const live = await db().select().from(challenges).where(eq(challenges.id, ch.challengeId)).get();
  await db()
    .insert(challengeVersions)
    .values({
      challengeId: ch.challengeId,
      version: 2,
      baseVersion: 1,
      bundleKey: live!.bundleKey!,
      bundleSha256: "1".repeat(64),
      bundleManifest: live!.bundleManifest!,
      qaReport: null,
      qaPassed: true,
      state: "rescoring",
      note: "concurrency",
      createdBy: ch.operatorId,
      createdAt: now,
    });
  const keys: RescoreKey[] = [];
  for (let i = 0; i < RESCORES; i++) {
    const agentId = await seedAgent(ch);
    const submissionId = await seedSubmission(ch, agentId, "complete");
    await db()
      .update(submissions)
      .set({ status: "scored" })
      .where(eq(submissions.id, submissionId));
    await db()
      .insert(scores)
      .values({
        submissionId,
        challengeId: ch.challengeId,
        agentId,
        iteration: 1,
        profile: "engineering",
        profileVersion: 1,
        family: null,
        finalUnrounded: "50",
        finalFraction: "50",
        finalRounded: 50,
        band: "fair",
        breakdown: "{}",
        input: "{}",
        humanReview: false,
        judgeMode: "heuristic",
        reportKey: `reports/${submissionId}.json`,
        usage: null,
        challengeVersion: 1,
        filesSha256: null,
        submittedAt: now,
        enteredAt: now,
        scoredAt: now,
      });
    await db().insert(rescores).values({
      challengeId: ch.challengeId,
      version: 2,
      submissionId,
      agentId,
      state: "queued",
      queuedAt: now,
    });
    keys.push({ challengeId: ch.challengeId, version: 2, submissionId });
  }
  return { challengeId: ch.challengeId, keys };
}

/** Every rescore of the test's database: nothing else may hold the lane. */
async function clearLane() {
  await db()
    .update(rescores)
    .set({ state: "failed", leaseUntil: 0 })
    .where(eq(rescores.state, "running"));
}

beforeEach(clearLane);

const discard = (challengeId: string) =>
  db()
    .update(challengeVersions)
    .set({ state: "discarded" })
    .where(and(eq(challengeVersions.challengeId, challengeId), eq(challengeVersions.version, 2)));

describe("the rescore lane's claim", () => {
  it("lets exactly one of 5 concurrent claims take the lease", async () => {
    const { keys } = await seedRescoring();
    const now = Date.now();
    const claims = await Promise.all(
      keys.map((k) => claimRescore(db(), k, now, LEASE_MS, RESCORE_CONCURRENCY)),
    );
    expect(claims.filter((a) => a !== null)).toHaveLength(RESCORE_CONCURRENCY);
    const running = await db().select().from(rescores).where(eq(rescores.state, "running")).all();
    expect(running).toHaveLength(RESCORE_CONCURRENCY);
    // Settled, it frees the lane for the next.
    const winner = keys[claims.findIndex((a) => a !== null)]!;
    await settleRescore(db(), winner, { state: "failed", error: "test" }, Date.now());
    const next = keys.find((k) => k !== winner)!;
    expect(await claimRescore(db(), next, Date.now(), LEASE_MS, RESCORE_CONCURRENCY)).toBe(1);
  });

  it("never starts a rescore of a discarded version, and one running at the discard writes nothing", async () => {
    const { challengeId, keys } = await seedRescoring();
    const [first, second] = keys as [RescoreKey, RescoreKey];
    expect(await claimRescore(db(), first, Date.now(), LEASE_MS, RESCORE_CONCURRENCY)).toBe(1);
    await discard(challengeId);
    const settled = await settleRescore(
      db(),
      first,
      {
        state: "scored",
        scoreWrite: "{}",
        fullScore: null,
        changedTests: "[]",
        finalRounded: 99,
        finalUnrounded: "99",
      },
      Date.now(),
    );
    expect(settled).toBe(false);
    const row = await findRescore(db(), first);
    expect(row).toMatchObject({
      state: "failed",
      leaseUntil: 0,
      scoreWrite: null,
      finalRounded: null,
    });
    expect(row!.error).toMatch(/discarded/);
    // The lane is free, yet nothing of the discarded version is claimed.
    expect(await claimRescore(db(), second, Date.now(), LEASE_MS, RESCORE_CONCURRENCY)).toBeNull();
  });
});

describe("the rescore lane through the pipeline", () => {
  /** A runner that records how many calls overlap; it answers 503 (a retryable failure). */
  function recordingRunner() {
    const seen = { calls: 0, active: 0, maxActive: 0 };
    const runner = {
      fetch: async () => {
        seen.calls += 1;
        seen.active += 1;
        seen.maxActive = Math.max(seen.maxActive, seen.active);
        await new Promise((resolve) => setTimeout(resolve, 300));
        seen.active -= 1;
        return new Response("busy", { status: 503 });
      },
    };
    const scoreEnv = { ...env, RUNNER_HTTP: runner as unknown as Fetcher } as ScoreEnv;
    return { seen, scoreEnv };
  }
  const message = (k: RescoreKey) => ({ v: 1 as const, kind: "rescore" as const, ...k });

  it("runs at most one of 5 concurrent rescore messages; the others yield", async () => {
    const { keys } = await seedRescoring();
    const { seen, scoreEnv } = recordingRunner();
    const outcomes = await Promise.all(
      keys.map((k) => processRescore(scoreEnv, message(k), Date.now)),
    );
    expect(seen.maxActive).toBe(1);
    expect(seen.calls).toBe(1);
    const yielded = outcomes.filter((o) => o.action === "retry" && o.note.includes("yields"));
    expect(yielded).toHaveLength(RESCORES - 1);
  });

  it("runs none of a discarded version's rescores", async () => {
    const { challengeId, keys } = await seedRescoring();
    await discard(challengeId);
    const { seen, scoreEnv } = recordingRunner();
    const outcomes = await Promise.all(
      keys.map((k) => processRescore(scoreEnv, message(k), Date.now)),
    );
    expect(seen.calls).toBe(0);
    for (const o of outcomes) expect(o.action).toBe("ack");
  });
});
