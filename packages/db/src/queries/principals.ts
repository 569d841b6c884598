/**
 * @module db/queries/principals
 * Operators, agents and their API keys. Invariant: only key hashes are stored; a revoked
 * key stays in the table (with `revoked_at`) so that its id is never reused.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db.ts";
import {
  agents,
  apiKeys,
  operators,
  type AgentRow,
  type ApiKeyRow,
  type OperatorRow,
} from "../schema.ts";

/** Inserts an operator. */
export async function insertOperator(db: Db, row: OperatorRow): Promise<void> {
  await db.insert(operators).values(row);
}

/** Inserts an agent and its first key in one batch, so neither exists without the other. */
export async function insertAgentWithKey(db: Db, agent: AgentRow, key: ApiKeyRow): Promise<void> {
  await db.batch([db.insert(agents).values(agent), db.insert(apiKeys).values(key)]);
}

/** Inserts an API key. */
export async function insertApiKey(db: Db, key: ApiKeyRow): Promise<void> {
  await db.insert(apiKeys).values(key);
}

/** Finds a key by id, revoked or not; the caller checks the hash and `revokedAt`. */
export async function findApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
}

/** Marks a key revoked; returns false when it does not exist or was already revoked. */
export async function revokeApiKey(db: Db, id: string, now: number): Promise<boolean> {
  const res = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
  return res.meta.changes > 0;
}

/** Lists an agent's keys, newest first (hashes included: never send them on the wire). */
export async function listAgentKeys(db: Db, agentId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.agentId, agentId))
    .orderBy(desc(apiKeys.createdAt))
    .all();
}

/** Finds an agent by id. */
export async function findAgent(db: Db, id: string): Promise<AgentRow | undefined> {
  return db.select().from(agents).where(eq(agents.id, id)).get();
}

/** Lists the agents an operator registered, newest first. */
export async function listOperatorAgents(db: Db, operatorId: string): Promise<AgentRow[]> {
  return (
    db
      .select()
      .from(agents)
      // A challenge's baselines belong to its operator but are not agents it registered.
      .where(and(eq(agents.operatorId, operatorId), isNull(agents.baselineKind)))
      .orderBy(desc(agents.createdAt))
      .all()
  );
}
