/**
 * Proves the reads a trace is cross-checked with (docs/design.md §40) against a real D1: the
 * agent's earlier submissions count whatever became of them, only before the one being scored,
 * only its own and only on that challenge; "the same code was scored before" is by files hash,
 * on that challenge, by anyone, strictly before the given time, never the submission itself.
 */
import { describe, expect, it } from "vitest";
import {
  enterChallenge,
  failSubmission,
  findEarlierSubmissions,
  hasScoredSameFiles,
} from "../src/index.ts";
import {
  T0,
  rows,
  seedAgent,
  seedChallenge,
  seedEntrant,
  seedScored,
  seedSubmission,
  testDb,
} from "./seed.ts";

const db = testDb();
const FILES = "f".repeat(64);

describe("findEarlierSubmissions", () => {
  it("counts the agent's earlier submissions to the challenge, failed ones included", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const first = await seedSubmission(db, agentId, challengeId, { receivedAt: T0 + 100 });
    expect(await failSubmission(db, first.id, "the runner refused it", T0 + 150)).toBe(true);
    await seedSubmission(db, agentId, challengeId, { receivedAt: T0 + 200 });
    const current = await seedSubmission(db, agentId, challengeId, { receivedAt: T0 + 300 });
    await seedSubmission(db, agentId, challengeId, { receivedAt: T0 + 400 }); // after: not counted
    // The same agent in another challenge, and another agent in this one, do not count.
    const other = await seedChallenge(db, operatorId);
    await enterChallenge(db, { agentId, challengeId: other, enteredAt: T0 });
    await seedSubmission(db, agentId, other, { receivedAt: T0 + 250 });
    const { agentId: stranger } = await seedAgent(db, operatorId);
    await enterChallenge(db, { agentId: stranger, challengeId, enteredAt: T0 });
    await seedSubmission(db, stranger, challengeId, { receivedAt: T0 + 260 });

    expect(
      await findEarlierSubmissions(db, {
        agentId,
        challengeId,
        receivedAt: T0 + 300,
        excludeId: current.id,
      }),
    ).toEqual({ count: 2, lastReceivedAt: T0 + 200 });
  });

  it("answers none for a first submission", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const only = await seedSubmission(db, agentId, challengeId, { receivedAt: T0 + 5 });
    expect(
      await findEarlierSubmissions(db, {
        agentId,
        challengeId,
        receivedAt: T0 + 5,
        excludeId: only.id,
      }),
    ).toEqual({ count: 0, lastReceivedAt: null });
  });
});

describe("hasScoredSameFiles", () => {
  it("finds the same files scored before, by anyone, on that challenge only", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const earlier = await seedScored(db, agentId, challengeId, {
      receivedAt: T0 + 10,
      filesSha256: FILES,
    });
    const { agentId: copier } = await seedAgent(db, operatorId);
    await enterChallenge(db, { agentId: copier, challengeId, enteredAt: T0 });
    const q = { challengeId, filesSha256: FILES, excludeId: "sub-copier" };
    // seedScored scores at T0 + 1000: strictly before is the rule.
    expect(await hasScoredSameFiles(db, { ...q, before: T0 + 1001 })).toBe(true);
    expect(await hasScoredSameFiles(db, { ...q, before: T0 + 1000 })).toBe(false);
    // Other files, the submission itself, another challenge: no.
    expect(
      await hasScoredSameFiles(db, { ...q, filesSha256: "e".repeat(64), before: T0 + 5000 }),
    ).toBe(false);
    expect(await hasScoredSameFiles(db, { ...q, excludeId: earlier, before: T0 + 5000 })).toBe(
      false,
    );
    const other = await seedChallenge(db, operatorId);
    expect(await hasScoredSameFiles(db, { ...q, challengeId: other, before: T0 + 5000 })).toBe(
      false,
    );
  });

  it("keeps the first scoring time when a later rescore rewrites the score's scored_at", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    await seedScored(db, agentId, challengeId, { receivedAt: T0 + 10, filesSha256: FILES });
    // A version's promotion rewrites the row's scored_at to the rescore's time.
    await rows(
      "UPDATE scores SET scored_at = ?1 WHERE challenge_id = ?2",
      T0 + 99_000,
      challengeId,
    );
    expect(
      await hasScoredSameFiles(db, {
        challengeId,
        filesSha256: FILES,
        excludeId: "sub-later",
        before: T0 + 1001,
      }),
    ).toBe(true);
  });
});
