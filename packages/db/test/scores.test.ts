/**
 * Proves the score role's queries against a real D1: the scoring lease is held by one consumer
 * and taken over only once it expired; a score, its parts, its `scored` event and the
 * submission's status are written together, only for a running submission on the live
 * version, and a repeat of the same submission changes nothing; failures and deferrals move
 * only unsettled submissions; the reconciler's reads find exactly the stranded rows.
 */
import { describe, expect, it } from "vitest";
import {
  claimScoringLease,
  deferScoring,
  failSubmission,
  findAbandonedScoringRuns,
  findScore,
  findScoringContext,
  findStrandedSubmissions,
  findSubmission,
  insertVersion,
  listRescores,
  listSubmissionHistory,
  markSubmissionPublished,
  noteSubmissionRequeued,
  saveScore,
  transitionSubmission,
  findVersion,
} from "../src/index.ts";
import { T0, rows, scoreWrite, seedEntrant, seedScored, seedSubmission, testDb } from "./seed.ts";

const db = testDb();

/** How many rows each part table holds for a submission. */
async function partCounts(id: string) {
  const [r] = await rows<Record<string, number>>(
    `SELECT (SELECT COUNT(*) FROM scores WHERE submission_id = ?1) AS scores,
       (SELECT COUNT(*) FROM score_components WHERE submission_id = ?1) AS components,
       (SELECT COUNT(*) FROM judgements WHERE submission_id = ?1) AS judgements,
       (SELECT COUNT(*) FROM findings WHERE submission_id = ?1) AS findings,
       (SELECT COUNT(*) FROM test_counts WHERE submission_id = ?1) AS tests,
       (SELECT COUNT(*) FROM audit_events WHERE submission_id = ?1 AND type = 'scored') AS events`,
    id,
  );
  return r;
}

describe("claimScoringLease", () => {
  it("leases a submission to one consumer and lets another take it only after the lease", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    expect(await claimScoringLease(db, id, T0 + 10, 1000)).toEqual({ claimed: true, attempts: 1 });
    expect(await findSubmission(db, id)).toMatchObject({ status: "running", runningAt: T0 + 10 });
    expect(await claimScoringLease(db, id, T0 + 500, 1000)).toEqual({
      claimed: false,
      leaseUntil: T0 + 1010,
    });
    // At exactly lease_until the lease has run out.
    expect(await claimScoringLease(db, id, T0 + 1010, 1000)).toEqual({
      claimed: true,
      attempts: 2,
    });
    // The first running time stays.
    expect((await findSubmission(db, id))?.runningAt).toBe(T0 + 10);
  });

  it("lets exactly one of parallel claims win", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    const claims = await Promise.all(
      Array.from({ length: 6 }, () => claimScoringLease(db, id, T0 + 10, 1000)),
    );
    expect(claims.filter((c) => c.claimed)).toEqual([{ claimed: true, attempts: 1 }]);
  });

  it("never claims a scored or failed submission, nor a missing one", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const scored = await seedScored(db, agentId, challengeId);
    const failed = await seedSubmission(db, agentId, challengeId);
    await failSubmission(db, failed.id, "bad", T0, "archive-refused");
    expect((await claimScoringLease(db, scored, T0 + 999_999, 1000)).claimed).toBe(false);
    expect(await claimScoringLease(db, failed.id, T0 + 999_999, 1000)).toEqual({
      claimed: false,
      leaseUntil: null,
    });
    expect(await claimScoringLease(db, "missing", T0, 1000)).toEqual({
      claimed: false,
      leaseUntil: null,
    });
    expect((await findSubmission(db, failed.id))?.status).toBe("failed");
  });
});

describe("saveScore", () => {
  it("writes the score, its parts, its event and the scored status together; a repeat changes nothing", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id, iteration } = await seedSubmission(db, agentId, challengeId);
    await claimScoringLease(db, id, T0, 60_000);
    const w = scoreWrite(
      { submissionId: id, challengeId, agentId, iteration },
      { finalRounded: 81 },
    );
    expect(await saveScore(db, w, T0 + 2000)).toBe(true);
    expect(await partCounts(id)).toEqual({
      scores: 1,
      components: 1,
      judgements: 1,
      findings: 1,
      tests: 1,
      events: 1,
    });
    expect(await findScore(db, id)).toMatchObject({ finalRounded: 81, challengeVersion: 1 });
    expect(await findSubmission(db, id)).toMatchObject({ status: "scored", scoredAt: T0 + 2000 });
    const [event] = await listSubmissionHistory(db, id);
    expect(event).toMatchObject({ id: `scored:${id}`, type: "scored", at: T0 + 2000 });
    expect(JSON.parse(event?.after ?? "null")).toMatchObject({ status: "scored", score: 81 });

    // The same submission again, even with another score: nothing changes.
    const other = scoreWrite(
      { submissionId: id, challengeId, agentId, iteration },
      { finalRounded: 12 },
    );
    expect(await saveScore(db, other, T0 + 3000)).toBe(false);
    expect((await findScore(db, id))?.finalRounded).toBe(81);
    expect((await findSubmission(db, id))?.scoredAt).toBe(T0 + 2000);
    expect(await partCounts(id)).toMatchObject({ scores: 1, components: 1, events: 1 });
  });

  it("writes nothing for a submission that is not running", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id, iteration } = await seedSubmission(db, agentId, challengeId);
    const w = scoreWrite({ submissionId: id, challengeId, agentId, iteration });
    expect(await saveScore(db, w, T0 + 2000)).toBe(false);
    expect(await partCounts(id)).toEqual({
      scores: 0,
      components: 0,
      judgements: 0,
      findings: 0,
      tests: 0,
      events: 0,
    });
    expect((await findSubmission(db, id))?.status).toBe("received");
  });

  it("writes nothing when the challenge's live version moved on during the run", async () => {
    const { agentId, challengeId } = await seedEntrant(db, { version: 2 });
    const { id, iteration } = await seedSubmission(db, agentId, challengeId);
    await claimScoringLease(db, id, T0, 60_000);
    const stale = scoreWrite(
      { submissionId: id, challengeId, agentId, iteration },
      { challengeVersion: 1 },
    );
    expect(await saveScore(db, stale, T0 + 2000)).toBe(false);
    expect(await findScore(db, id)).toBeNull();
    expect((await findSubmission(db, id))?.status).toBe("running");
    const live = scoreWrite(
      { submissionId: id, challengeId, agentId, iteration },
      { challengeVersion: 2 },
    );
    expect(await saveScore(db, live, T0 + 2000)).toBe(true);
  });

  it("queues a rescore on an open candidate and sends a ready one back to rescoring", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const candidate = {
      challengeId,
      version: 2,
      baseVersion: 1,
      bundleKey: "bundles/v2",
      bundleSha256: "d".repeat(64),
      bundleManifest: "{}",
      qaReport: null,
      qaPassed: true,
      state: "rescoring" as const,
      note: "v2",
      createdBy: operatorId,
      createdAt: T0,
      decidedBy: null,
      decidedAt: null,
      decisionId: null,
    };
    const uploaded = {
      id: `uploaded:${challengeId}:2`,
      challengeId,
      submissionId: null,
      agentId: null,
      type: "version-uploaded" as const,
      scope: "challenge" as const,
      actorKind: "operator" as const,
      actorId: operatorId,
      cause: "v2",
      before: null,
      after: null,
      at: T0,
    };
    expect(await insertVersion(db, candidate, [], uploaded)).toBe(true);
    expect((await findVersion(db, challengeId, 2))?.state).toBe("ready");
    const id = await seedScored(db, agentId, challengeId);
    expect((await findVersion(db, challengeId, 2))?.state).toBe("rescoring");
    expect(await listRescores(db, challengeId, 2)).toMatchObject([
      { submissionId: id, agentId, state: "queued" },
    ]);
  });
});

describe("failures and deferrals", () => {
  it("fails an unsettled submission with its code and event, and leaves a scored one alone", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    await claimScoringLease(db, id, T0, 60_000);
    expect(
      await failSubmission(db, id, "archive refused", T0 + 5, "archive-refused", "ingest"),
    ).toBe(true);
    expect(await findSubmission(db, id)).toMatchObject({
      status: "failed",
      failureCode: "archive-refused",
      failureReason: "archive refused",
      failedAt: T0 + 5,
    });
    const [event] = await listSubmissionHistory(db, id);
    expect(event).toMatchObject({ type: "failed", actorId: "ingest", cause: "archive refused" });
    expect(JSON.parse(event?.before ?? "null")).toEqual({ status: "running" });
    const [run] = await rows<{ lease_until: number; last_error: string }>(
      "SELECT lease_until, last_error FROM scoring_runs WHERE submission_id = ?1",
      id,
    );
    expect(run).toEqual({ lease_until: 0, last_error: "archive refused" });

    const scored = await seedScored(db, agentId, challengeId);
    expect(await failSubmission(db, scored, "late", T0 + 6)).toBe(false);
    expect((await findSubmission(db, scored))?.status).toBe("scored");
    expect((await listSubmissionHistory(db, scored)).map((e) => e.type)).toEqual(["scored"]);
  });

  it("defers a running submission to waiting, keeping the first failure's time", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    await claimScoringLease(db, id, T0, 60_000);
    await deferScoring(db, id, "runner busy", T0 + 10, T0 + 100);
    expect(await findSubmission(db, id)).toMatchObject({
      status: "waiting",
      waitingReason: "runner busy",
      waitingSince: T0 + 10,
      retryAt: T0 + 100,
    });
    // The lease was given back: the retry claims at once, and clears the wait.
    expect(await claimScoringLease(db, id, T0 + 100, 60_000)).toEqual({
      claimed: true,
      attempts: 2,
    });
    expect(await findSubmission(db, id)).toMatchObject({
      status: "running",
      waitingReason: null,
      retryAt: null,
    });
    await deferScoring(db, id, "runner busy again", T0 + 200, T0 + 300);
    expect((await findSubmission(db, id))?.waitingSince).toBe(T0 + 10);
  });
});

describe("the reconciler's reads", () => {
  it("finds queued, waiting and unpublished submissions past their cutoffs, at most `limit` each", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const start = T0 - 1_000_000;
    const queued = [];
    for (let i = 0; i < 3; i++) {
      const s = await seedSubmission(db, agentId, challengeId, { receivedAt: start + i });
      await transitionSubmission(db, s.id, "queued", start + i);
      queued.push(s.id);
    }
    const fresh = await seedSubmission(db, agentId, challengeId, { receivedAt: start + 500 });
    await transitionSubmission(db, fresh.id, "queued", start + 500);
    const waiting = await seedSubmission(db, agentId, challengeId, { receivedAt: start });
    await claimScoringLease(db, waiting.id, start, 10);
    await deferScoring(db, waiting.id, "busy", start + 1, start + 2);
    const failed = await seedSubmission(db, agentId, challengeId, { receivedAt: start });
    await failSubmission(db, failed.id, "bad", start + 3, "archive-refused");

    const found = await findStrandedSubmissions(
      db,
      { idleBefore: start + 100, unpublishedBefore: start + 100 },
      2,
    );
    expect(found.map((s) => [s.submissionId, s.status])).toEqual([
      [queued[0], "queued"],
      [queued[1], "queued"],
      [waiting.id, "waiting"],
      [failed.id, "failed"],
    ]);
    expect(found[2]?.waitingSince).toBe(start + 1);

    // A re-queue note makes the next sweep wait; a published outcome is never found again.
    await noteSubmissionRequeued(db, queued[0] ?? "", start + 200);
    expect(await markSubmissionPublished(db, failed.id, start + 5)).toBe(true);
    expect(await markSubmissionPublished(db, failed.id, start + 6)).toBe(false);
    expect(await markSubmissionPublished(db, fresh.id, start + 6)).toBe(false);
    const after = await findStrandedSubmissions(
      db,
      { idleBefore: start + 100, unpublishedBefore: start + 100 },
      10,
    );
    expect(after.map((s) => s.submissionId)).toEqual([queued[1], queued[2], waiting.id]);
  });

  it("finds running submissions whose lease expired past the grace", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const start = T0 + 5_000_000;
    const dead = await seedSubmission(db, agentId, challengeId, { receivedAt: start });
    const alive = await seedSubmission(db, agentId, challengeId, { receivedAt: start });
    await claimScoringLease(db, dead.id, start, 100);
    await claimScoringLease(db, alive.id, start, 10_000);
    // Other tests' runs are abandoned long before `start`: keep this agent's.
    const mine = async (graceMs: number) =>
      (await findAbandonedScoringRuns(db, start + 1000, graceMs, 100)).filter(
        (r) => r.agentId === agentId,
      );
    expect(await mine(500)).toEqual([
      { submissionId: dead.id, challengeId, agentId, attempts: 1, since: start },
    ]);
    expect(await mine(1500)).toEqual([]);
  });

  it("reads a submission's scoring context with its entry time and baseline", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    const ctx = await findScoringContext(db, id);
    expect(ctx).toMatchObject({
      submission: { id, agentId },
      challenge: { id: challengeId },
      enteredAt: T0,
      baseline: null,
    });
    expect(await findScoringContext(db, "missing")).toBeNull();
  });
});
