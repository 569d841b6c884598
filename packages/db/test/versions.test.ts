/**
 * Proves challenge versions and shadow rescoring (docs/design.md §30) against a real D1: one
 * open candidate per challenge; the rescore lane admits exactly `maxRunning` of parallel
 * claims; a rescore settles only while its version is being rescored, and the last one makes
 * the version ready; a discard or a promotion happens once; a promotion swaps every rescored
 * score with its parts in one batch, keeps the old row whole and audits each change, and a
 * refused or repeated promotion changes nothing.
 */
import { describe, expect, it } from "vitest";
import {
  claimRescore,
  countRescores,
  countRunningRescores,
  discardVersion,
  findChallenge,
  findLatestVersionNumber,
  findOpenVersion,
  findRescore,
  findScore,
  findStrandedRescores,
  findVersion,
  insertVersion,
  isRescoreClaimable,
  listPromotedRescores,
  listRescores,
  listResultHistory,
  listResultsOnVersion,
  listSubmissionHistory,
  listSupersededScores,
  listVersions,
  promoteVersion,
  settleRescore,
  type AuditEventInput,
  type ChallengeVersionRow,
  type RescoreKey,
} from "../src/index.ts";
import { T0, rows, scoreWrite, seedEntrant, seedScored, testDb, uid } from "./seed.ts";

const db = testDb();

function candidate(
  challengeId: string,
  operatorId: string,
  over: Partial<ChallengeVersionRow> = {},
): ChallengeVersionRow {
  return {
    challengeId,
    version: 2,
    baseVersion: 1,
    bundleKey: `bundles/${challengeId}-v2`,
    bundleSha256: "e".repeat(64),
    bundleManifest: '{"v":2}',
    qaReport: null,
    qaPassed: true,
    state: "rescoring",
    note: "fixes a test",
    createdBy: operatorId,
    createdAt: T0 + 100,
    decidedBy: null,
    decidedAt: null,
    decisionId: null,
    ...over,
  };
}

function versionEvent(
  challengeId: string,
  type: AuditEventInput["type"],
  id = uid("vev"),
): AuditEventInput {
  return {
    id,
    challengeId,
    submissionId: null,
    agentId: null,
    type,
    scope: "challenge",
    actorKind: "operator",
    actorId: "op",
    cause: type,
    before: null,
    after: null,
    at: T0,
  };
}

/** A published challenge with `n` scored submissions and a rescoring candidate over them. */
async function withCandidate(n: number) {
  const e = await seedEntrant(db);
  const targets = [];
  for (let i = 0; i < n; i++) {
    targets.push({
      submissionId: await seedScored(db, e.agentId, e.challengeId, { finalRounded: 50 + i }),
      agentId: e.agentId,
    });
  }
  const inserted = await insertVersion(
    db,
    candidate(e.challengeId, e.operatorId),
    targets,
    versionEvent(e.challengeId, "version-uploaded"),
  );
  if (!inserted) throw new Error("candidate refused");
  const key = (submissionId: string): RescoreKey => ({
    challengeId: e.challengeId,
    version: 2,
    submissionId,
  });
  return { ...e, targets, key };
}

describe("insertVersion", () => {
  it("records a candidate with a queued rescore per target and its event", async () => {
    const { challengeId, targets } = await withCandidate(3);
    expect(await findOpenVersion(db, challengeId)).toMatchObject({
      version: 2,
      state: "rescoring",
    });
    const queued = await listRescores(db, challengeId, 2);
    expect(queued.map((r) => [r.submissionId, r.state])).toEqual(
      targets.map((t) => [t.submissionId, "queued"]).sort(),
    );
    expect(countRescores(queued)).toEqual({
      total: 3,
      queued: 3,
      running: 0,
      scored: 0,
      failed: 0,
    });
    expect(await findLatestVersionNumber(db, challengeId)).toBe(2);
    const [event] = await rows<{ type: string }>(
      "SELECT type FROM audit_events WHERE challenge_id = ?1 AND scope = 'challenge'",
      challengeId,
    );
    expect(event?.type).toBe("version-uploaded");
  });

  it("refuses a second open candidate, a stale base version and an unpublished challenge", async () => {
    const { operatorId, challengeId } = await withCandidate(1);
    const third = candidate(challengeId, operatorId, { version: 3 });
    expect(await insertVersion(db, third, [], versionEvent(challengeId, "version-uploaded"))).toBe(
      false,
    );
    expect(await findVersion(db, challengeId, 3)).toBeNull();

    const other = await seedEntrant(db);
    const stale = candidate(other.challengeId, other.operatorId, { baseVersion: 2 });
    expect(
      await insertVersion(db, stale, [], versionEvent(other.challengeId, "version-uploaded")),
    ).toBe(false);
    const draft = await seedEntrant(db, { status: "draft", publishedAt: null });
    expect(
      await insertVersion(
        db,
        candidate(draft.challengeId, draft.operatorId),
        [],
        versionEvent(draft.challengeId, "version-uploaded", "never"),
      ),
    ).toBe(false);
    expect(await rows("SELECT id FROM audit_events WHERE id = 'never'")).toEqual([]);
    expect(await listVersions(db, draft.challengeId)).toEqual([]);
    expect(await findLatestVersionNumber(db, draft.challengeId)).toBeNull();
  });

  it("makes a candidate with nothing to rescore ready at once", async () => {
    const { operatorId, challengeId } = await seedEntrant(db);
    await insertVersion(
      db,
      candidate(challengeId, operatorId),
      [],
      versionEvent(challengeId, "version-uploaded"),
    );
    expect((await findVersion(db, challengeId, 2))?.state).toBe("ready");
  });
});

describe("the rescore lane", () => {
  it("admits exactly maxRunning of parallel claims, and tells a full lane from a gone rescore", async () => {
    const { targets, key } = await withCandidate(5);
    const now = T0 + 10_000;
    const running = await countRunningRescores(db, now);
    const attempts = await Promise.all(
      targets.map((t) => claimRescore(db, key(t.submissionId), now, 60_000, running + 2)),
    );
    expect(attempts.filter((a) => a === 1)).toHaveLength(2);
    expect(attempts.filter((a) => a === null)).toHaveLength(3);
    expect(await countRunningRescores(db, now)).toBe(running + 2);
    const waiting = targets.find((_, i) => attempts[i] === null);
    expect(await isRescoreClaimable(db, key(waiting?.submissionId ?? ""), now)).toBe(true);
    const holder = targets.find((_, i) => attempts[i] === 1);
    expect(await isRescoreClaimable(db, key(holder?.submissionId ?? ""), now)).toBe(false);
    // Past the lease, the holder's rescore may be claimed again (attempt 2).
    expect(
      await claimRescore(db, key(holder?.submissionId ?? ""), now + 60_001, 60_000, running + 2),
    ).toBe(2);
  });

  it("admits nothing with a lane of 0", async () => {
    const { targets, key } = await withCandidate(1);
    expect(await claimRescore(db, key(targets[0]?.submissionId ?? ""), T0, 1000, 0)).toBeNull();
    expect((await findRescore(db, key(targets[0]?.submissionId ?? "")))?.state).toBe("queued");
  });
});

describe("settling and discarding", () => {
  it("settles rescores and makes the version ready after the last one", async () => {
    const { challengeId, targets, key } = await withCandidate(2);
    const [a, b] = targets.map((t) => key(t.submissionId));
    if (!a || !b) throw new Error("two targets");
    await claimRescore(db, a, T0, 60_000, 1000);
    await claimRescore(db, b, T0, 60_000, 1000);
    expect(await settleRescore(db, a, { state: "failed", error: "boom" }, T0 + 1)).toBe(true);
    expect((await findVersion(db, challengeId, 2))?.state).toBe("rescoring");
    // A second settle of the same rescore changes nothing.
    expect(await settleRescore(db, a, { state: "failed", error: "again" }, T0 + 2)).toBe(false);
    expect((await findRescore(db, a))?.error).toBe("boom");
    const scored = {
      state: "scored" as const,
      scoreWrite: "{}",
      fullScore: null,
      changedTests: "[]",
      finalRounded: 90,
      finalUnrounded: "90",
    };
    expect(await settleRescore(db, b, scored, T0 + 3)).toBe(true);
    expect(await findRescore(db, b)).toMatchObject({
      state: "scored",
      finalRounded: 90,
      leaseUntil: 0,
    });
    expect((await findVersion(db, challengeId, 2))?.state).toBe("ready");
  });

  it("discards once, with its event, and releases a rescore that was running", async () => {
    const { operatorId, challengeId, targets, key } = await withCandidate(1);
    const k = key(targets[0]?.submissionId ?? "");
    await claimRescore(db, k, T0, 60_000, 1000);
    const decision = { operatorId, decisionId: "dec-discard", now: T0 + 50 };
    expect(
      await discardVersion(
        db,
        { challengeId, version: 2 },
        decision,
        versionEvent(challengeId, "discarded", "disc-1"),
      ),
    ).toBe(true);
    expect(
      await discardVersion(
        db,
        { challengeId, version: 2 },
        { ...decision, decisionId: "dec-2" },
        versionEvent(challengeId, "discarded", "disc-2"),
      ),
    ).toBe(false);
    expect(await findVersion(db, challengeId, 2)).toMatchObject({
      state: "discarded",
      decidedBy: operatorId,
      decisionId: "dec-discard",
    });
    expect(await rows("SELECT id FROM audit_events WHERE id IN ('disc-1', 'disc-2')")).toEqual([
      { id: "disc-1" },
    ]);
    expect(await findOpenVersion(db, challengeId)).toBeNull();
    // The running rescore's outcome is not written; the rescore is released.
    expect(await settleRescore(db, k, { state: "failed", error: "late" }, T0 + 60)).toBe(false);
    expect(await findRescore(db, k)).toMatchObject({ state: "failed", leaseUntil: 0 });
    expect((await findRescore(db, k))?.error).toContain("discarded");
    expect(await claimRescore(db, k, T0 + 999_999, 1000, 1000)).toBeNull();
    expect(await findStrandedRescores(db, T0 + 999_999, T0 + 999_999, 100)).not.toContainEqual(
      expect.objectContaining({ challengeId }),
    );
  });
});

describe("promoteVersion", () => {
  it("swaps every rescored score with its parts, keeps the old rows and audits, once", async () => {
    const { operatorId, agentId, challengeId, targets, key } = await withCandidate(2);
    for (const [i, t] of targets.entries()) {
      const k = key(t.submissionId);
      await claimRescore(db, k, T0, 60_000, 1000);
      const [sub] = await rows<{ iteration: number }>(
        "SELECT iteration FROM submissions WHERE id = ?1",
        t.submissionId,
      );
      const w = scoreWrite(
        { submissionId: t.submissionId, challengeId, agentId, iteration: sub?.iteration ?? 0 },
        { finalRounded: 90 + i, challengeVersion: 2, scoredAt: T0 + 7000 },
      );
      w.components = [
        { key: "correctness", weight: 50, score: 1, scoreText: "1", contributionText: "50" },
        { key: "security", weight: 50, score: 0.5, scoreText: "0.5", contributionText: "25" },
      ];
      await settleRescore(
        db,
        k,
        {
          state: "scored",
          scoreWrite: JSON.stringify(w),
          fullScore: null,
          changedTests: "[]",
          finalRounded: 90 + i,
          finalUnrounded: `${90 + i}.25`,
        },
        T0 + 7000,
      );
    }
    expect((await findVersion(db, challengeId, 2))?.state).toBe("ready");
    const before = await listResultsOnVersion(db, challengeId, 1);
    const promotion = {
      challengeId,
      version: 2,
      operatorId,
      reason: "the fixed test",
      decisionId: "dec-promote",
      now: T0 + 8000,
      split: null,
      event: versionEvent(challengeId, "promoted", "promoted-1"),
    };
    expect(await promoteVersion(db, promotion)).toBe(true);

    expect(await findChallenge(db, challengeId)).toMatchObject({
      version: 2,
      bundleKey: `bundles/${challengeId}-v2`,
      bundleManifest: '{"v":2}',
    });
    for (const [i, t] of targets.entries()) {
      expect(await findScore(db, t.submissionId)).toMatchObject({
        finalRounded: 90 + i,
        challengeVersion: 2,
        scoredAt: T0 + 7000,
      });
      expect(
        await rows(
          "SELECT key FROM score_components WHERE submission_id = ?1 ORDER BY key",
          t.submissionId,
        ),
      ).toEqual([{ key: "correctness" }, { key: "security" }]);
      const superseded = await listSupersededScores(db, t.submissionId);
      expect(superseded).toHaveLength(1);
      expect(JSON.parse(superseded[0]?.score ?? "{}")).toMatchObject({
        final_rounded: 50 + i,
        challenge_version: 1,
      });
      const history = await listSubmissionHistory(db, t.submissionId);
      expect(history.map((e) => e.type)).toEqual(["scored", "rescored"]);
    }
    expect(await rows("SELECT id FROM audit_events WHERE id = 'promoted-1'")).toEqual([
      { id: "promoted-1" },
    ]);
    // The board ranks the new scores; the old ones are the history of version 1.
    const board = await listResultHistory(db, challengeId);
    expect(board.map((r) => r.score).sort()).toEqual([90, 91]);
    expect((await listResultsOnVersion(db, challengeId, 1)).map((r) => r.score).sort()).toEqual(
      before.map((r) => r.score).sort(),
    );
    expect(await listPromotedRescores(db, challengeId, 2, 1)).toMatchObject(
      targets
        .map((t, i) => ({ submissionId: t.submissionId, score: 90 + i, previousScore: 50 + i }))
        .sort((a, b) => a.submissionId.localeCompare(b.submissionId)),
    );

    // A repeat (another decision) changes nothing.
    const again = { ...promotion, decisionId: "dec-again", now: T0 + 9000 };
    expect(
      await promoteVersion(db, {
        ...again,
        event: versionEvent(challengeId, "promoted", "promoted-2"),
      }),
    ).toBe(false);
    expect(await rows("SELECT id FROM audit_events WHERE id = 'promoted-2'")).toEqual([]);
    expect(await listSupersededScores(db, targets[0]?.submissionId ?? "")).toHaveLength(1);
    expect((await findVersion(db, challengeId, 2))?.decisionId).toBe("dec-promote");
  });

  it("refuses a candidate that is still rescoring, changing no score", async () => {
    const { operatorId, challengeId, targets } = await withCandidate(1);
    const promoted = await promoteVersion(db, {
      challengeId,
      version: 2,
      operatorId,
      reason: "too early",
      decisionId: "dec-early",
      now: T0 + 8000,
      split: null,
      event: versionEvent(challengeId, "promoted", "early"),
    });
    expect(promoted).toBe(false);
    expect((await findChallenge(db, challengeId))?.version).toBe(1);
    expect((await findScore(db, targets[0]?.submissionId ?? ""))?.challengeVersion).toBe(1);
    expect(await listSupersededScores(db, targets[0]?.submissionId ?? "")).toEqual([]);
    expect(await rows("SELECT id FROM audit_events WHERE id = 'early'")).toEqual([]);
  });
});
