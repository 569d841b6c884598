/**
 * Proves the audit trail against a real D1: an event is appended once per id (a repeat inserts
 * nothing), the migration's triggers refuse any UPDATE or DELETE, a guarded event is written
 * only when its guard holds, histories read in insertion order and page past 100 events, a
 * challenge's public history holds only challenge-scope events, and an operator's removal is
 * recorded once, with its event, only for a scored submission.
 */
import { describe, expect, it } from "vitest";
import {
  appendAuditEvent,
  findRemoval,
  listChallengeHistory,
  listResultHistory,
  listSubmissionHistory,
  prepareAuditEvent,
  removeSubmission,
  type AuditEventInput,
} from "../src/index.ts";
import { T0, rows, seedEntrant, seedScored, seedSubmission, testDb, uid } from "./seed.ts";

const db = testDb();

const event = (over: Partial<AuditEventInput> & { challengeId: string }): AuditEventInput => ({
  id: uid("ev"),
  submissionId: null,
  agentId: null,
  type: "closed",
  scope: "challenge",
  actorKind: "operator",
  actorId: "op",
  cause: "test",
  before: null,
  after: { ok: true },
  at: T0,
  ...over,
});

describe("appendAuditEvent", () => {
  it("appends an event once per id, with its JSON before and after", async () => {
    const { challengeId } = await seedEntrant(db);
    const e = event({ challengeId, id: "ev-once", before: { a: 1 }, after: { a: 2 } });
    expect(await appendAuditEvent(db, e)).toBe(true);
    expect(await appendAuditEvent(db, { ...e, cause: "retried" })).toBe(false);
    const stored = await rows<{ cause: string; before: string; after: string }>(
      "SELECT cause, before, after FROM audit_events WHERE id = 'ev-once'",
    );
    expect(stored).toEqual([{ cause: "test", before: '{"a":1}', after: '{"a":2}' }]);
  });

  it("cannot be updated or deleted: the triggers abort", async () => {
    const { challengeId } = await seedEntrant(db);
    await appendAuditEvent(db, event({ challengeId, id: "ev-fixed" }));
    await expect(
      db.$client.prepare("UPDATE audit_events SET cause = 'x' WHERE id = 'ev-fixed'").run(),
    ).rejects.toThrow();
    await expect(
      db.$client.prepare("DELETE FROM audit_events WHERE id = 'ev-fixed'").run(),
    ).rejects.toThrow();
    expect(await rows("SELECT cause FROM audit_events WHERE id = 'ev-fixed'")).toEqual([
      { cause: "test" },
    ]);
  });

  it("writes a guarded event only when its guard holds", async () => {
    const { challengeId } = await seedEntrant(db);
    const guard = "EXISTS (SELECT 1 FROM challenges WHERE id = ?13 AND status = ?14)";
    await prepareAuditEvent(db.$client, event({ challengeId, id: "ev-no" }), guard, [
      challengeId,
      "closed",
    ]).run();
    await prepareAuditEvent(db.$client, event({ challengeId, id: "ev-yes" }), guard, [
      challengeId,
      "published",
    ]).run();
    expect(
      await rows("SELECT id FROM audit_events WHERE id IN ('ev-no', 'ev-yes') ORDER BY id"),
    ).toEqual([{ id: "ev-yes" }]);
  });
});

describe("histories", () => {
  it("read a submission's events in insertion order and page after a seq, past 100 events", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    // Times run backwards: the order is insertion (seq), not `at`.
    for (let i = 0; i < 130; i++) {
      await appendAuditEvent(
        db,
        event({
          challengeId,
          id: `h-${i}`,
          submissionId: id,
          agentId,
          scope: "submission",
          at: T0 - i,
        }),
      );
    }
    const first = await listSubmissionHistory(db, id);
    expect(first.map((e) => e.id)).toEqual(Array.from({ length: 100 }, (_, i) => `h-${i}`));
    const next = await listSubmissionHistory(db, id, { afterSeq: first.at(-1)?.seq ?? 0 });
    expect(next.map((e) => e.id)).toEqual(Array.from({ length: 30 }, (_, i) => `h-${100 + i}`));
    const small = await listSubmissionHistory(db, id, { limit: 3 });
    expect(small.map((e) => e.id)).toEqual(["h-0", "h-1", "h-2"]);
    const seqs = [...first, ...next].map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it("show a challenge's public events only, and no other challenge's", async () => {
    const a = await seedEntrant(db);
    const b = await seedEntrant(db);
    await appendAuditEvent(db, event({ challengeId: a.challengeId, id: "pub-a" }));
    await appendAuditEvent(
      db,
      event({ challengeId: a.challengeId, id: "priv-a", scope: "submission" }),
    );
    await appendAuditEvent(db, event({ challengeId: b.challengeId, id: "pub-b" }));
    const history = await listChallengeHistory(db, a.challengeId);
    expect(history.map((e) => e.id)).toEqual(["pub-a"]);
  });
});

describe("removeSubmission", () => {
  it("removes a scored submission once, with its event, and leaves it out of the board", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const scored = await seedScored(db, agentId, challengeId, { finalRounded: 77 });
    const kept = await seedScored(db, agentId, challengeId, { finalRounded: 60 });
    const queued = await seedSubmission(db, agentId, challengeId);
    const request = {
      submissionId: scored,
      operatorId,
      reason: "copied",
      now: T0 + 5000,
      eventId: "rm-1",
    };
    const removed = await removeSubmission(db, request);
    expect(removed).toEqual({
      ok: true,
      value: { submissionId: scored, operatorId, reason: "copied", removedAt: T0 + 5000 },
    });
    const history = await listSubmissionHistory(db, scored);
    expect(history.map((e) => e.type)).toEqual(["scored", "removed"]);
    expect(JSON.parse(history[1]?.after ?? "null")).toEqual({
      status: "scored",
      ranked: false,
      score: 77,
      reason: "copied",
    });
    const again = await removeSubmission(db, { ...request, now: T0 + 6000, eventId: "rm-2" });
    expect(again).toMatchObject({ ok: false, error: { reason: "already-removed" } });
    expect(await rows("SELECT id FROM audit_events WHERE id = 'rm-2'")).toEqual([]);
    expect((await findRemoval(db, scored))?.removedAt).toBe(T0 + 5000);

    expect(
      await removeSubmission(db, { ...request, submissionId: queued.id, eventId: "rm-3" }),
    ).toEqual({ ok: false, error: { reason: "not-scored", status: "received" } });
    expect(
      await removeSubmission(db, { ...request, submissionId: "missing", eventId: "rm-4" }),
    ).toEqual({ ok: false, error: { reason: "not-found" } });
    expect(await findRemoval(db, queued.id)).toBeNull();

    const board = await listResultHistory(db, challengeId);
    expect(board.map((r) => r.submissionId)).toEqual([kept]);
  });
});
