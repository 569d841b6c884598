/**
 * Proves the principal queries against a real D1: an agent and its first key are written
 * together (neither without the other); a key is revoked once and stays in the table; lists
 * are scoped and newest first; an operator's baselines are not listed as its agents; the
 * in-flight count covers exactly received, queued and running, across challenges.
 */
import { describe, expect, it } from "vitest";
import {
  countSubmissionsInFlight,
  findAgent,
  findApiKey,
  insertAgentWithKey,
  insertApiKey,
  insertBaselineSubmission,
  listAgentKeys,
  listOperatorAgents,
  revokeApiKey,
  transitionSubmission,
} from "../src/index.ts";
import {
  T0,
  seedAgent,
  seedChallenge,
  seedEntrant,
  seedOperator,
  seedSubmission,
  testDb,
} from "./seed.ts";

const db = testDb();

describe("agents and keys", () => {
  it("writes an agent with its first key in one batch: a failing key leaves no agent", async () => {
    const op = await seedOperator(db);
    const { agentId, keyId } = await seedAgent(db, op);
    expect(await findAgent(db, agentId)).toMatchObject({ operatorId: op });
    // The key id is taken: the batch fails whole.
    const agent = {
      id: "agent-orphan",
      name: "x",
      operatorId: op,
      createdAt: T0,
      baselineKind: null,
      baselineOf: null,
    };
    const key = {
      id: keyId,
      role: "agent" as const,
      agentId: "agent-orphan",
      operatorId: null,
      secretHash: "b",
      label: null,
      createdAt: T0,
      revokedAt: null,
    };
    await expect(insertAgentWithKey(db, agent, key)).rejects.toThrow();
    expect(await findAgent(db, "agent-orphan")).toBeUndefined();
  });

  it("revokes a key once, keeps it, and lists an agent's keys newest first", async () => {
    const op = await seedOperator(db);
    const { agentId, keyId } = await seedAgent(db, op);
    await insertApiKey(db, {
      id: "key-second",
      role: "agent",
      agentId,
      operatorId: null,
      secretHash: "c",
      label: "ci",
      createdAt: T0 + 10,
      revokedAt: null,
    });
    expect((await listAgentKeys(db, agentId)).map((k) => k.id)).toEqual(["key-second", keyId]);
    expect(await revokeApiKey(db, keyId, T0 + 20)).toBe(true);
    expect(await revokeApiKey(db, keyId, T0 + 30)).toBe(false);
    expect(await revokeApiKey(db, "missing", T0)).toBe(false);
    expect(await findApiKey(db, keyId)).toMatchObject({ revokedAt: T0 + 20 });
    expect(await listAgentKeys(db, agentId)).toHaveLength(2);
  });

  it("lists an operator's own agents newest first, without its challenges' baselines", async () => {
    const op = await seedOperator(db);
    const other = await seedOperator(db);
    const a = await seedAgent(db, op, T0);
    const b = await seedAgent(db, op, T0 + 1);
    await seedAgent(db, other);
    const challengeId = await seedChallenge(db, op);
    await insertBaselineSubmission(db, {
      challengeId,
      operatorId: op,
      baselineId: "ref",
      label: "Reference",
      kind: "reference",
      artifact: { sha256: "a", key: "k", size: 1 },
      now: T0 + 5,
    });
    expect((await listOperatorAgents(db, op)).map((x) => x.id)).toEqual([b.agentId, a.agentId]);
  });
});

describe("countSubmissionsInFlight", () => {
  it("counts received, queued and running across challenges, not settled ones nor another agent's", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    expect(await countSubmissionsInFlight(db, agentId)).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await seedSubmission(db, agentId, challengeId)).id);
    await transitionSubmission(db, ids[0] ?? "", "queued", T0);
    await transitionSubmission(db, ids[1] ?? "", "running", T0);
    await transitionSubmission(db, ids[2] ?? "", "failed", T0);
    await transitionSubmission(db, ids[3] ?? "", "running", T0);
    await transitionSubmission(db, ids[3] ?? "", "waiting", T0);
    const other = await seedAgent(db, operatorId);
    expect(await countSubmissionsInFlight(db, agentId)).toBe(3);
    expect(await countSubmissionsInFlight(db, other.agentId)).toBe(0);
  });
});
