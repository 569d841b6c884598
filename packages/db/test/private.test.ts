/**
 * Proves the public/private board queries (docs/design.md §29) against a real D1: a split, a
 * full score and a private board are written once (the first stands); final choices are
 * replaced whole with their event only while the challenge is published, per agent.
 */
import { describe, expect, it } from "vitest";
import {
  closeChallenge,
  findFullScore,
  findFullScoreKey,
  findPrivateBoard,
  findSplit,
  listChallengeHistory,
  listFinalChoices,
  listFullScores,
  listSubmissionHistory,
  publishPrivateBoard,
  recordSplit,
  replaceFinalChoices,
  saveFullScore,
} from "../src/index.ts";
import { T0, rows, seedEntrant, seedSubmission, testDb } from "./seed.ts";

const db = testDb();

describe("splits and full scores", () => {
  it("records a split and a full score once; a repeat keeps the first", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const split = {
      challengeId,
      method: "seeded" as const,
      seed: "s1",
      privatePercent: 30,
      privateIds: '["t2"]',
      finalChoices: 2,
      bundleSha256: "a",
      recordedAt: T0,
    };
    await recordSplit(db, split);
    await recordSplit(db, { ...split, seed: "s2" });
    expect(await findSplit(db, challengeId)).toEqual(split);

    const { id } = await seedSubmission(db, agentId, challengeId);
    const full = {
      submissionId: id,
      challengeId,
      agentId,
      finalUnrounded: "70",
      finalFraction: "70/1",
      finalRounded: 70,
      band: "good",
      intervalLow: 65.5,
      intervalHigh: 74.5,
      breakdown: "{}",
      reportKey: "reports/full",
      scoredAt: T0,
    };
    await saveFullScore(db, full);
    await saveFullScore(db, { ...full, finalRounded: 10, reportKey: "other" });
    expect(await findFullScore(db, id)).toEqual(full);
    expect(await findFullScoreKey(db, id)).toBe("reports/full");
    expect(await findFullScoreKey(db, "missing")).toBeNull();
    expect(await listFullScores(db, challengeId)).toEqual([full]);
  });
});

describe("replaceFinalChoices", () => {
  it("replaces an agent's choices whole with an event, and nothing once the challenge closed", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const subs = [];
    for (let i = 0; i < 3; i++) subs.push((await seedSubmission(db, agentId, challengeId)).id);
    const choose = (ids: string[], now: number, eventId: string) =>
      replaceFinalChoices(db, { challengeId, agentId, submissionIds: ids, now, eventId });
    expect(await choose([subs[0] ?? "", subs[1] ?? ""], T0 + 1, "fc-1")).toBe(true);
    expect(await choose([subs[2] ?? ""], T0 + 2, "fc-2")).toBe(true);
    expect((await listFinalChoices(db, challengeId, agentId)).map((c) => c.submissionId)).toEqual([
      subs[2],
    ]);
    expect(await choose([], T0 + 3, "fc-3")).toBe(true);
    expect(await listFinalChoices(db, challengeId)).toEqual([]);
    await choose([subs[0] ?? ""], T0 + 4, "fc-4");

    await closeChallenge(db, challengeId, T0 + 5);
    expect(await choose([subs[1] ?? ""], T0 + 6, "fc-5")).toBe(false);
    expect((await listFinalChoices(db, challengeId, agentId)).map((c) => c.submissionId)).toEqual([
      subs[0],
    ]);
    const events = await rows<{ id: string }>(
      "SELECT id FROM audit_events WHERE type = 'final-chosen' AND agent_id = ?1 ORDER BY seq",
      agentId,
    );
    expect(events.map((e) => e.id)).toEqual(["fc-1", "fc-2", "fc-3", "fc-4"]);
    expect(await listSubmissionHistory(db, subs[0] ?? "")).toEqual([]);
  });
});

describe("publishPrivateBoard", () => {
  it("publishes a board once with its event; the first board stands", async () => {
    const { operatorId, challengeId } = await seedEntrant(db);
    const board = {
      challengeId,
      entries: [{ rank: 1 }],
      now: T0,
      actor: { kind: "operator" as const, id: operatorId },
      split: { method: "seeded" },
    };
    expect(await publishPrivateBoard(db, board)).toBe(true);
    expect(await publishPrivateBoard(db, { ...board, entries: [], now: T0 + 1 })).toBe(false);
    expect(await findPrivateBoard(db, challengeId)).toEqual({
      challengeId,
      publishedAt: T0,
      entries: '[{"rank":1}]',
    });
    const history = await listChallengeHistory(db, challengeId);
    expect(history.map((e) => [e.id, e.actorKind, e.actorId])).toEqual([
      [`private-board:${challengeId}`, "operator", operatorId],
    ]);
  });
});
