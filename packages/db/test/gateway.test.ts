/**
 * Proves the metering gateway's record against a real D1: an entry's calls are summed per model
 * (sorted by name) over (from, to]; calls without usage are counted, never summed as zeros; an
 * empty window is null; and another agent's calls, or the same agent's on another challenge,
 * never count.
 */
import { describe, expect, it } from "vitest";
import {
  enterChallenge,
  recordGatewayCall,
  sumGatewayUsage,
  type GatewayCallRow,
} from "../src/index.ts";
import { T0, seedAgent, seedChallenge, seedEntrant, testDb, uid } from "./seed.ts";

const db = testDb();

function call(
  agentId: string,
  challengeId: string,
  startedAt: number,
  over: Partial<GatewayCallRow> = {},
): GatewayCallRow {
  return {
    id: uid("call"),
    agentId,
    challengeId,
    model: "model-a",
    tokensIn: 100,
    tokensOut: 10,
    status: 200,
    failure: null,
    streamed: false,
    requestBytes: 512,
    startedAt,
    finishedAt: startedAt + 50,
    ...over,
  };
}

describe("gateway usage", () => {
  it("sums an entry's calls per model, sorted by name, and counts the calls without usage", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    await recordGatewayCall(db, call(agentId, challengeId, T0 + 1, { model: "zeta" }));
    await recordGatewayCall(db, call(agentId, challengeId, T0 + 2));
    await recordGatewayCall(db, call(agentId, challengeId, T0 + 3, { tokensIn: 7, tokensOut: 3 }));
    await recordGatewayCall(
      db,
      call(agentId, challengeId, T0 + 4, {
        tokensIn: null,
        tokensOut: null,
        status: null,
        failure: "timeout",
      }),
    );
    await recordGatewayCall(
      db,
      call(agentId, challengeId, T0 + 5, { model: "Alpha", streamed: true, tokensOut: 1 }),
    );
    expect(await sumGatewayUsage(db, { agentId, challengeId, from: null, to: T0 + 10 })).toEqual({
      source: "gateway",
      calls: 5,
      tokensIn: 307,
      tokensOut: 24,
      callsWithoutUsage: 1,
      models: [
        { model: "Alpha", calls: 1, tokensIn: 100, tokensOut: 1 },
        { model: "model-a", calls: 3, tokensIn: 107, tokensOut: 13 },
        { model: "zeta", calls: 1, tokensIn: 100, tokensOut: 10 },
      ],
      from: 0,
      to: T0 + 10,
    });
  });

  it("counts a call exactly at `to` and not one exactly at `from`", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    await recordGatewayCall(db, call(agentId, challengeId, T0 + 100, { tokensIn: 1 }));
    await recordGatewayCall(db, call(agentId, challengeId, T0 + 200, { tokensIn: 2 }));
    await recordGatewayCall(db, call(agentId, challengeId, T0 + 300, { tokensIn: 4 }));
    const window = await sumGatewayUsage(db, {
      agentId,
      challengeId,
      from: T0 + 100,
      to: T0 + 300,
    });
    expect(window).toMatchObject({ calls: 2, tokensIn: 6, from: T0 + 100, to: T0 + 300 });
    // Just inside and just outside each bound.
    expect(
      await sumGatewayUsage(db, { agentId, challengeId, from: T0 + 99, to: T0 + 299 }),
    ).toMatchObject({ calls: 2, tokensIn: 3 });
    expect(await sumGatewayUsage(db, { agentId, challengeId, from: T0 + 300, to: T0 + 400 })).toBe(
      null,
    );
  });

  it("answers null, not zero, when the window holds no call", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    expect(await sumGatewayUsage(db, { agentId, challengeId, from: null, to: T0 + 1e9 })).toBe(
      null,
    );
    // A call that reported no usage is still a call.
    await recordGatewayCall(
      db,
      call(agentId, challengeId, T0 + 1, { tokensIn: null, tokensOut: null }),
    );
    expect(await sumGatewayUsage(db, { agentId, challengeId, from: null, to: T0 + 1 })).toEqual({
      source: "gateway",
      calls: 1,
      tokensIn: 0,
      tokensOut: 0,
      callsWithoutUsage: 1,
      models: [{ model: "model-a", calls: 1, tokensIn: 0, tokensOut: 0 }],
      from: 0,
      to: T0 + 1,
    });
  });

  it("never counts agent A's calls on challenge 1 for A on challenge 2, nor for agent B", async () => {
    const { operatorId, agentId: a, challengeId: one } = await seedEntrant(db);
    const two = await seedChallenge(db, operatorId);
    await enterChallenge(db, { agentId: a, challengeId: two, enteredAt: T0 });
    const { agentId: b } = await seedAgent(db, operatorId);
    await enterChallenge(db, { agentId: b, challengeId: one, enteredAt: T0 });
    await recordGatewayCall(db, call(a, one, T0 + 1, { tokensIn: 1000 }));
    await recordGatewayCall(db, call(a, one, T0 + 2, { tokensIn: 1000 }));
    await recordGatewayCall(db, call(a, two, T0 + 3, { tokensIn: 20 }));
    await recordGatewayCall(db, call(b, one, T0 + 4, { tokensIn: 3 }));
    const all = { from: null, to: T0 + 10 };
    expect(await sumGatewayUsage(db, { agentId: a, challengeId: one, ...all })).toMatchObject({
      calls: 2,
      tokensIn: 2000,
    });
    expect(await sumGatewayUsage(db, { agentId: a, challengeId: two, ...all })).toMatchObject({
      calls: 1,
      tokensIn: 20,
    });
    expect(await sumGatewayUsage(db, { agentId: b, challengeId: one, ...all })).toMatchObject({
      calls: 1,
      tokensIn: 3,
    });
    expect(await sumGatewayUsage(db, { agentId: b, challengeId: two, ...all })).toBe(null);
  });

  it("refuses a call of an agent or challenge that does not exist", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    await expect(recordGatewayCall(db, call("nobody", challengeId, T0))).rejects.toThrow();
    await expect(recordGatewayCall(db, call(agentId, "nowhere", T0))).rejects.toThrow();
  });
});
