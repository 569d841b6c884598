/**
 * Proves the submission queries against a real D1: `insertSubmission` numbers iterations
 * max + 1 per agent × challenge and admits a row only while every guard holds (published,
 * entered, iteration quota, in-flight cap, cooldown, idempotency claim), exactly the cap under
 * parallel calls; the lifecycle moves forward only; an operator's re-judgement re-queues only
 * a failure on our side and is audited in the same batch; the sweeps' reads page and bound.
 */
import { describe, expect, it } from "vitest";
import {
  closeChallenge,
  countRejudges,
  countSubmissionsInFlight,
  deleteReceivedSubmission,
  failSubmission,
  findIdempotencyRecord,
  findStaleReceivedSubmissions,
  findSubmission,
  findSubmitContext,
  insertSubmission,
  isObjectReferenced,
  listAgentSubmissions,
  listSubmissionHistory,
  listSubmissionRejudges,
  markSubmissionQueued,
  recordRunnerUsage,
  rejudgeSubmission,
  transitionSubmission,
} from "../src/index.ts";
import {
  OPEN_GUARD,
  T0,
  rows,
  seedAgent,
  seedChallenge,
  seedEntrant,
  seedSubmission,
  submissionRow,
  testDb,
  uid,
} from "./seed.ts";

const db = testDb();
const claimFor = (agentId: string, key: string, at = T0) => ({
  agentId,
  key,
  requestHash: `hash-${key}`,
  leaseUntil: at + 60_000,
  expiresAt: at + 86_400_000,
});

describe("insertSubmission: iterations", () => {
  it("numbers an agent's submissions 1, 2, 3 on a challenge, and another agent's from 1", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const other = await seedAgent(db, operatorId);
    await db.$client
      .prepare("INSERT INTO entries (agent_id, challenge_id, entered_at) VALUES (?1, ?2, ?3)")
      .bind(other.agentId, challengeId, T0)
      .run();
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await seedSubmission(db, agentId, challengeId));
    const theirs = await seedSubmission(db, other.agentId, challengeId);
    expect(mine.map((s) => s.iteration)).toEqual([1, 2, 3]);
    expect(theirs.iteration).toBe(1);
    const listed = await listAgentSubmissions(db, agentId, challengeId);
    expect(listed.map((s) => [s.iteration, s.status])).toEqual([
      [3, "received"],
      [2, "received"],
      [1, "received"],
    ]);
  });

  it("gives parallel inserts distinct consecutive iterations", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        insertSubmission(db, submissionRow(agentId, challengeId), OPEN_GUARD, null),
      ),
    );
    const iterations = results.map((r) => (r.kind === "inserted" ? r.iteration : -1));
    expect(iterations.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe("insertSubmission: guards", () => {
  it("refuses a draft or closed challenge and an agent that did not enter, writing nothing", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const draft = await seedChallenge(db, operatorId, { status: "draft", publishedAt: null });
    await db.$client
      .prepare("INSERT INTO entries (agent_id, challenge_id, entered_at) VALUES (?1, ?2, ?3)")
      .bind(agentId, draft, T0)
      .run();
    const notEntered = await seedChallenge(db, operatorId);
    const onDraft = submissionRow(agentId, draft);
    expect(await insertSubmission(db, onDraft, OPEN_GUARD, null)).toEqual({ kind: "refused" });
    expect(
      await insertSubmission(db, submissionRow(agentId, notEntered), OPEN_GUARD, null),
    ).toEqual({ kind: "refused" });
    expect(await closeChallenge(db, challengeId, T0 + 1)).toBe(true);
    expect(
      await insertSubmission(db, submissionRow(agentId, challengeId), OPEN_GUARD, null),
    ).toEqual({ kind: "refused" });
    expect(await findSubmission(db, onDraft.id)).toBeUndefined();
    expect(await rows("SELECT id FROM submissions WHERE agent_id = ?1", agentId)).toEqual([]);
  });

  it("admits exactly maxIterations, not counting failures on our side", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const guard = { ...OPEN_GUARD, maxIterations: 3 };
    const first = submissionRow(agentId, challengeId);
    expect((await insertSubmission(db, first, guard, null)).kind).toBe("inserted");
    expect(
      (await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).kind,
    ).toBe("inserted");
    // A failure of ours gives the iteration back; one of the agent's own does not.
    expect(await failSubmission(db, first.id, "runner lost", T0 + 1, "infrastructure")).toBe(true);
    expect(
      (await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).kind,
    ).toBe("inserted");
    expect(
      (await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).kind,
    ).toBe("inserted");
    expect(await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).toEqual({
      kind: "refused",
    });
    const listed = await listAgentSubmissions(db, agentId, challengeId);
    expect(listed.map((s) => s.iteration)).toEqual([4, 3, 2, 1]);
  });

  it("gives back the iteration of a submission whose own dependencies were refused, not of a refused archive", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const guard = { ...OPEN_GUARD, maxIterations: 2 };
    const first = submissionRow(agentId, challengeId);
    const second = submissionRow(agentId, challengeId);
    expect((await insertSubmission(db, first, guard, null)).kind).toBe("inserted");
    expect((await insertSubmission(db, second, guard, null)).kind).toBe("inserted");
    expect(
      await failSubmission(db, first.id, "left-pad: not in the lock", T0 + 1, "dependencies"),
    ).toBe(true);
    expect(await failSubmission(db, second.id, "unsafe path", T0 + 2, "archive-refused")).toBe(
      true,
    );
    // One iteration back (the dependencies failure), none for the refused archive.
    expect(
      (await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).kind,
    ).toBe("inserted");
    expect(await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).toEqual({
      kind: "refused",
    });
  });

  it("admits nothing under a quota of 0", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const guard = { ...OPEN_GUARD, maxIterations: 0 };
    expect(await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).toEqual({
      kind: "refused",
    });
    expect(await listAgentSubmissions(db, agentId, challengeId)).toEqual([]);
  });

  it("admits exactly the in-flight cap of 12 parallel inserts, across the agent's challenges", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const second = await seedChallenge(db, operatorId);
    await db.$client
      .prepare("INSERT INTO entries (agent_id, challenge_id, entered_at) VALUES (?1, ?2, ?3)")
      .bind(agentId, second, T0)
      .run();
    const guard = { ...OPEN_GUARD, maxInFlight: 5 };
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        insertSubmission(
          db,
          submissionRow(agentId, i % 2 === 0 ? challengeId : second),
          guard,
          null,
        ),
      ),
    );
    expect(results.filter((r) => r.kind === "inserted")).toHaveLength(5);
    expect(results.filter((r) => r.kind === "refused")).toHaveLength(7);
    expect(await countSubmissionsInFlight(db, agentId)).toBe(5);
    const stored = await rows<{ n: number }>(
      "SELECT COUNT(*) AS n FROM submissions WHERE agent_id = ?1",
      agentId,
    );
    expect(stored[0]?.n).toBe(5);
  });

  it("frees an in-flight slot when a submission settles, and leaves another agent's slots alone", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const other = await seedAgent(db, operatorId);
    await db.$client
      .prepare("INSERT INTO entries (agent_id, challenge_id, entered_at) VALUES (?1, ?2, ?3)")
      .bind(other.agentId, challengeId, T0)
      .run();
    const guard = { ...OPEN_GUARD, maxInFlight: 1 };
    const first = submissionRow(agentId, challengeId);
    expect((await insertSubmission(db, first, guard, null)).kind).toBe("inserted");
    expect(
      (await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).kind,
    ).toBe("refused");
    expect(
      (await insertSubmission(db, submissionRow(other.agentId, challengeId), guard, null)).kind,
    ).toBe("inserted");
    expect(await transitionSubmission(db, first.id, "failed", T0 + 1, "bad archive")).toBe(true);
    expect(
      (await insertSubmission(db, submissionRow(agentId, challengeId), guard, null)).kind,
    ).toBe("inserted");
  });

  it("refuses a submission inside the cooldown and admits one after it", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    await seedSubmission(db, agentId, challengeId, { receivedAt: T0 + 1000 });
    const during = { ...OPEN_GUARD, cooldownSince: T0 + 1000 };
    expect(
      await insertSubmission(
        db,
        submissionRow(agentId, challengeId, { receivedAt: T0 + 1500 }),
        during,
        null,
      ),
    ).toEqual({ kind: "refused" });
    const after = { ...OPEN_GUARD, cooldownSince: T0 + 1001 };
    expect(
      await insertSubmission(
        db,
        submissionRow(agentId, challengeId, { receivedAt: T0 + 2000 }),
        after,
        null,
      ),
    ).toEqual({ kind: "inserted", iteration: 2 });
  });
});

describe("insertSubmission: idempotency claims", () => {
  it("claims the key with the row, and answers a second request with the key duplicate", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const row = submissionRow(agentId, challengeId);
    const claim = claimFor(agentId, "key-1");
    expect(await insertSubmission(db, row, OPEN_GUARD, claim)).toEqual({
      kind: "inserted",
      iteration: 1,
    });
    expect(await findIdempotencyRecord(db, agentId, "key-1")).toMatchObject({
      state: "in-flight",
      submissionId: row.id,
      requestHash: "hash-key-1",
      leaseUntil: T0 + 60_000,
      expiresAt: T0 + 86_400_000,
    });
    const again = submissionRow(agentId, challengeId);
    expect(await insertSubmission(db, again, OPEN_GUARD, claim)).toEqual({ kind: "duplicate" });
    expect(await findSubmission(db, again.id)).toBeUndefined();
    expect((await findIdempotencyRecord(db, agentId, "key-1"))?.submissionId).toBe(row.id);
  });

  it("lets one of parallel requests with the same key win", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const claim = claimFor(agentId, "key-race");
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        insertSubmission(db, submissionRow(agentId, challengeId), OPEN_GUARD, claim),
      ),
    );
    expect(results.filter((r) => r.kind === "inserted")).toHaveLength(1);
    expect(results.filter((r) => r.kind === "duplicate")).toHaveLength(5);
    expect(await listAgentSubmissions(db, agentId, challengeId)).toHaveLength(1);
  });

  it("drops its claim when a guard refused the row, so a retry may claim the key", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const refused = await insertSubmission(
      db,
      submissionRow(agentId, challengeId),
      { ...OPEN_GUARD, maxIterations: 0 },
      claimFor(agentId, "key-2"),
    );
    expect(refused).toEqual({ kind: "refused" });
    expect(await findIdempotencyRecord(db, agentId, "key-2")).toBeUndefined();
    expect(
      (
        await insertSubmission(
          db,
          submissionRow(agentId, challengeId),
          OPEN_GUARD,
          claimFor(agentId, "key-2"),
        )
      ).kind,
    ).toBe("inserted");
  });

  it("takes over an expired record, and an in-flight claim whose lease ran out without its row", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const first = submissionRow(agentId, challengeId);
    await insertSubmission(db, first, OPEN_GUARD, claimFor(agentId, "key-3"));
    // Past the record's expiry (a day), the same key is a new request.
    const later = T0 + 86_400_001;
    const second = submissionRow(agentId, challengeId, { receivedAt: later });
    expect(
      await insertSubmission(db, second, OPEN_GUARD, claimFor(agentId, "key-3", later)),
    ).toEqual({ kind: "inserted", iteration: 2 });
    expect((await findIdempotencyRecord(db, agentId, "key-3"))?.submissionId).toBe(second.id);

    // A claim whose submission was never written (its request died) is free once its lease ends.
    await db.$client
      .prepare(
        `INSERT INTO idempotency_keys (agent_id, key, request_hash, state, submission_id,
           created_at, lease_until, expires_at) VALUES (?1, 'key-4', 'h', 'in-flight', 'ghost', ?2, ?3, ?4)`,
      )
      .bind(agentId, T0, T0 + 10, T0 + 86_400_000)
      .run();
    const early = submissionRow(agentId, challengeId, { receivedAt: T0 + 5 });
    expect(
      await insertSubmission(db, early, OPEN_GUARD, claimFor(agentId, "key-4", T0 + 5)),
    ).toEqual({ kind: "duplicate" });
    const late = submissionRow(agentId, challengeId, { receivedAt: T0 + 11 });
    expect(
      (await insertSubmission(db, late, OPEN_GUARD, claimFor(agentId, "key-4", T0 + 11))).kind,
    ).toBe("inserted");
  });

  it("records the answer with the queued status in one batch", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const row = submissionRow(agentId, challengeId);
    await insertSubmission(db, row, OPEN_GUARD, claimFor(agentId, "key-5"));
    await markSubmissionQueued(db, row.id, T0 + 7, {
      agentId,
      key: "key-5",
      status: 202,
      body: '{"id":"x"}',
    });
    expect(await findSubmission(db, row.id)).toMatchObject({ status: "queued", queuedAt: T0 + 7 });
    expect(await findIdempotencyRecord(db, agentId, "key-5")).toMatchObject({
      state: "done",
      responseStatus: 202,
      responseBody: '{"id":"x"}',
    });
  });
});

describe("the submission lifecycle", () => {
  it("moves forward only, stamping each status's time", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    expect(await transitionSubmission(db, id, "received", T0 + 1)).toBe(false);
    expect(await transitionSubmission(db, id, "scored", T0 + 1)).toBe(false);
    expect(await transitionSubmission(db, id, "queued", T0 + 2)).toBe(true);
    expect(await transitionSubmission(db, id, "queued", T0 + 3)).toBe(false);
    expect(await transitionSubmission(db, id, "running", T0 + 4)).toBe(true);
    expect(await transitionSubmission(db, id, "waiting", T0 + 5)).toBe(true);
    expect(await transitionSubmission(db, id, "running", T0 + 6)).toBe(true);
    expect(await transitionSubmission(db, id, "scored", T0 + 7)).toBe(true);
    expect(await transitionSubmission(db, id, "failed", T0 + 8, "late")).toBe(false);
    expect(await findSubmission(db, id)).toMatchObject({
      status: "scored",
      queuedAt: T0 + 2,
      runningAt: T0 + 6,
      waitingSince: T0 + 5,
      scoredAt: T0 + 7,
      failedAt: null,
      failureReason: null,
    });
    expect(await transitionSubmission(db, "missing", "queued", T0)).toBe(false);
  });

  it("records a failure's reason, or 'unknown' without one", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const a = await seedSubmission(db, agentId, challengeId);
    const b = await seedSubmission(db, agentId, challengeId);
    expect(await transitionSubmission(db, a.id, "failed", T0 + 9, "runner timed out")).toBe(true);
    expect(await transitionSubmission(db, b.id, "failed", T0 + 9)).toBe(true);
    expect(await findSubmission(db, a.id)).toMatchObject({
      status: "failed",
      failureReason: "runner timed out",
      failedAt: T0 + 9,
    });
    expect((await findSubmission(db, b.id))?.failureReason).toBe("unknown");
  });

  it("deletes a submission only while it is still received", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const a = await seedSubmission(db, agentId, challengeId);
    const b = await seedSubmission(db, agentId, challengeId);
    await transitionSubmission(db, b.id, "queued", T0 + 1);
    await deleteReceivedSubmission(db, a.id);
    await deleteReceivedSubmission(db, b.id);
    expect(await findSubmission(db, a.id)).toBeUndefined();
    expect((await findSubmission(db, b.id))?.status).toBe("queued");
  });
});

describe("rejudgeSubmission", () => {
  it("re-queues a failure on our side, with its audit row and event, and refuses anything else", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const ours = await seedSubmission(db, agentId, challengeId);
    const theirs = await seedSubmission(db, agentId, challengeId);
    await failSubmission(db, ours.id, "runner crashed", T0 + 10, "infrastructure");
    await failSubmission(db, theirs.id, "bad archive", T0 + 10, "archive-refused");

    const ok = await rejudgeSubmission(db, {
      id: "rj-1",
      submissionId: ours.id,
      operatorId,
      reason: "runner fixed",
      now: T0 + 20,
    });
    expect(ok.ok).toBe(true);
    expect(await findSubmission(db, ours.id)).toMatchObject({
      status: "queued",
      queuedAt: T0 + 20,
      failureCode: null,
      failureReason: null,
      failedAt: null,
    });
    expect(await listSubmissionRejudges(db, ours.id)).toEqual([
      {
        id: "rj-1",
        submissionId: ours.id,
        operatorId,
        reason: "runner fixed",
        previousFailureCode: "infrastructure",
        previousFailureReason: "runner crashed",
        requestedAt: T0 + 20,
      },
    ]);
    const history = await listSubmissionHistory(db, ours.id);
    expect(history.map((e) => [e.type, e.actorKind, e.actorId])).toEqual([
      ["failed", "system", "score"],
      ["rejudged", "operator", operatorId],
    ]);
    expect(JSON.parse(history[1]?.before ?? "null")).toEqual({
      status: "failed",
      failureCode: "infrastructure",
      failureReason: "runner crashed",
    });

    // Re-running it again is refused: it is queued now.
    const twice = await rejudgeSubmission(db, {
      id: "rj-2",
      submissionId: ours.id,
      operatorId,
      reason: "again",
      now: T0 + 30,
    });
    expect(twice).toEqual({ ok: false, error: { reason: "not-rejudgeable", status: "queued" } });
    const agentFault = await rejudgeSubmission(db, {
      id: "rj-3",
      submissionId: theirs.id,
      operatorId,
      reason: "please",
      now: T0 + 30,
    });
    expect(agentFault).toEqual({
      ok: false,
      error: { reason: "not-rejudgeable", status: "failed" },
    });
    expect(
      await rejudgeSubmission(db, {
        id: "rj-4",
        submissionId: "nope",
        operatorId,
        reason: "",
        now: 1,
      }),
    ).toEqual({ ok: false, error: { reason: "not-found" } });
    expect(await countRejudges(db, ours.id)).toBe(1);
    expect(await countRejudges(db, theirs.id)).toBe(0);
    expect((await findSubmission(db, theirs.id))?.status).toBe("failed");
  });
});

describe("reads", () => {
  it("reads a submit's context in one query: key, challenge by id or slug, counts, key record, runner time", async () => {
    const { agentId, keyId, challengeId } = await seedEntrant(db, { maxIterations: 7 });
    const a = submissionRow(agentId, challengeId, { receivedAt: T0 + 100 });
    await insertSubmission(db, a, OPEN_GUARD, claimFor(agentId, "ctx-key"));
    const b = await seedSubmission(db, agentId, challengeId, { receivedAt: T0 + 200 });
    await failSubmission(db, b.id, "lost", T0 + 300, "infrastructure");
    await recordRunnerUsage(db, {
      runId: "run-ctx",
      kind: "run",
      submissionId: a.id,
      agentId,
      challengeId,
      runnerMs: 1234,
      recordedAt: T0 + 400,
    });
    const ctx = await findSubmitContext(db, keyId, `slug-${challengeId}`, "ctx-key", T0 + 500, T0);
    expect(ctx).toMatchObject({
      key: { id: keyId, role: "agent", agentId, revokedAt: null },
      challenge: { id: challengeId, status: "published", maxIterations: 7, closesAt: null },
      entered: true,
      submissions: 1,
      lastSubmittedAt: T0 + 200,
      idempotencyKeyKnown: true,
      runnerMs: 1234,
    });
    // The runner time counts after `usageSince` only; an unknown key id answers nothing.
    expect(
      (await findSubmitContext(db, keyId, challengeId, "other", T0 + 500, T0 + 400))?.runnerMs,
    ).toBe(0);
    expect(
      (await findSubmitContext(db, keyId, challengeId, "other", T0 + 500))?.idempotencyKeyKnown,
    ).toBe(false);
    expect(await findSubmitContext(db, "no-key", challengeId, null, T0)).toBeUndefined();
    const noChallenge = await findSubmitContext(db, keyId, "no-such-challenge", null, T0);
    expect(noChallenge).toMatchObject({ challenge: undefined, entered: false, submissions: 0 });
  });

  it("reads the bundle's runtime and dependencies with the submit's context, null without a bundle", async () => {
    const manifest = {
      runtime: "node22",
      interface: { module: "app.mjs" },
      dependencies: { lockfile: null, submissions: { allowed: true, maxPackages: 20 } },
    };
    const withBundle = await seedEntrant(db, { bundleManifest: JSON.stringify(manifest) });
    const ctx = await findSubmitContext(db, withBundle.keyId, withBundle.challengeId, null, T0);
    expect(ctx?.challenge).toMatchObject({ runtime: "node22", interfaceModule: "app.mjs" });
    expect(JSON.parse(ctx?.challenge?.dependencies ?? "null")).toEqual(manifest.dependencies);
    const bare = await seedEntrant(db);
    const none = await findSubmitContext(db, bare.keyId, bare.challengeId, null, T0);
    expect(none?.challenge).toMatchObject({ runtime: null, dependencies: null });
  });

  it("pages stale received submissions oldest first, over more than 100 rows", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    // Before every other test's rows (they are received at T0 or later).
    const start = T0 - 10_000;
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) {
      ids.push((await seedSubmission(db, agentId, challengeId, { receivedAt: start + i })).id);
    }
    await transitionSubmission(db, ids[0] ?? "", "queued", T0);
    const page = await findStaleReceivedSubmissions(db, start + 110, 100);
    expect(page.map((s) => s.id)).toEqual(ids.slice(1, 101));
    const rest = await findStaleReceivedSubmissions(db, start + 110, 1000);
    expect(rest.map((s) => s.id)).toEqual(ids.slice(1, 110));
    expect(await findStaleReceivedSubmissions(db, start, 1000)).toEqual([]);
  });

  it("knows which stored objects a row still references", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId, { traceKey: "traces/t1" });
    expect(await isObjectReferenced(db, `artifacts/${id}.tar.gz`)).toBe(true);
    expect(await isObjectReferenced(db, "traces/t1")).toBe(true);
    expect(await isObjectReferenced(db, `bundles/${challengeId}.tar.gz`)).toBe(true);
    expect(await isObjectReferenced(db, "artifacts/orphan.tar.gz")).toBe(false);
    expect(await isObjectReferenced(db, `bundles/${uid("ch")}.tar.gz`)).toBe(false);
  });
});
