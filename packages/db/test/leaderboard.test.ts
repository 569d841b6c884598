/**
 * Proves the board's reads and the baselines against a real D1: the result history holds the
 * live version's scores of competing agents only (no removed submission, no baseline, no other
 * challenge); a draft's scores are invisible; names are read for more than 100 ids in one
 * query; a baseline is queued once per publish step and read apart from the ranking.
 */
import { describe, expect, it } from "vitest";
import {
  baselineIds,
  claimScoringLease,
  findPublicScore,
  findSubmission,
  insertBaselineSubmission,
  listAgentNames,
  listBaselineResults,
  listResultHistory,
  listStoredBreakdowns,
  listScoreUsage,
  saveScore,
} from "../src/index.ts";
import {
  T0,
  scoreWrite,
  seedAgent,
  seedEntrant,
  seedOperator,
  seedScored,
  testDb,
} from "./seed.ts";

const db = testDb();

describe("listResultHistory", () => {
  it("holds every ranking score of the challenge, and none of another challenge", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const other = await seedEntrant(db);
    const a = await seedScored(db, agentId, challengeId, { finalRounded: 70 });
    const b = await seedScored(db, agentId, challengeId, { finalRounded: 75 });
    await seedScored(db, other.agentId, other.challengeId, { finalRounded: 99 });
    const history = await listResultHistory(db, challengeId);
    expect(history.map((r) => [r.submissionId, r.agentId, r.score, r.iteration]).sort()).toEqual(
      [
        [a, agentId, 70, 1],
        [b, agentId, 75, 2],
      ].sort(),
    );
    const [first, second] = [a, b].sort();
    const page = await listStoredBreakdowns(db, challengeId, null, 1);
    expect(page.map((r) => r.submissionId)).toEqual([first]);
    expect(typeof page[0]!.breakdown).toBe("string");
    const next = await listStoredBreakdowns(db, challengeId, first!, 10);
    expect(next.map((r) => r.submissionId)).toEqual([second]);
    expect(await listScoreUsage(db, challengeId)).toEqual([]);
  });

  it("leaves out the challenge's baselines, which are read apart", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    await seedScored(db, agentId, challengeId, { finalRounded: 60 });
    const input = {
      challengeId,
      operatorId,
      baselineId: "ref",
      label: "Reference",
      kind: "reference" as const,
      artifact: { sha256: "a".repeat(64), key: "baselines/ref", size: 10 },
      now: T0,
    };
    const queued = await insertBaselineSubmission(db, input);
    expect(queued).toEqual({ ...baselineIds(challengeId, "ref"), created: true });
    expect(await insertBaselineSubmission(db, { ...input, now: T0 + 1 })).toMatchObject({
      created: false,
    });
    expect(await findSubmission(db, queued.submissionId)).toMatchObject({
      status: "queued",
      iteration: 1,
      receivedAt: T0,
    });
    await claimScoringLease(db, queued.submissionId, T0, 60_000);
    await saveScore(
      db,
      scoreWrite(
        { submissionId: queued.submissionId, challengeId, agentId: queued.agentId, iteration: 1 },
        { finalRounded: 100 },
      ),
      T0 + 1000,
    );
    expect((await listResultHistory(db, challengeId)).map((r) => r.score)).toEqual([60]);
    expect(await listBaselineResults(db, challengeId)).toEqual([
      {
        agentId: queued.agentId,
        submissionId: queued.submissionId,
        label: "Reference",
        kind: "reference",
        score: 100,
        unrounded: "100.25",
        scoredAt: T0 + 1000,
      },
    ]);
  });
});

describe("findPublicScore", () => {
  it("answers a score of a published challenge and nothing for a draft's", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const id = await seedScored(db, agentId, challengeId, { finalRounded: 64 });
    expect(await findPublicScore(db, id)).toMatchObject({
      submissionId: id,
      agentId,
      challengeId,
      finalRounded: 64,
      usage: null,
    });
    // Back to a draft (only a test can): the score is no longer public.
    await db.$client
      .prepare("UPDATE challenges SET status = 'draft' WHERE id = ?1")
      .bind(challengeId)
      .run();
    expect(await findPublicScore(db, id)).toBeNull();
    expect(await findPublicScore(db, "missing")).toBeNull();
  });
});

describe("listAgentNames", () => {
  it("reads 120 names in one query, skipping unknown ids", async () => {
    const op = await seedOperator(db);
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push((await seedAgent(db, op)).agentId);
    const names = await listAgentNames(db, [...ids, "nobody"]);
    expect(names.map((n) => n.id).sort()).toEqual([...ids].sort());
    expect(names.find((n) => n.id === ids[0])?.name).toBe(`Agent ${ids[0]}`);
    expect(await listAgentNames(db, [])).toEqual([]);
  });
});
