/**
 * @module db/queries/idempotency
 * Idempotency records for submit, scoped per agent. Invariants: a key is claimed by exactly
 * one request at a time (INSERT … ON CONFLICT with a lease); a `done` record replays its
 * stored answer until it expires (at least 24 hours); an expired record is replaced.
 */
import { and, eq, lt, or, sql } from "drizzle-orm";
import type { Db } from "../index.ts";
import { idempotencyKeys, type IdempotencyRow } from "../schema.ts";

/** What a claim attempt found. */
export type IdempotencyClaim = { kind: "claimed" } | { kind: "existing"; record: IdempotencyRow };

/**
 * Claims `key` for a new request: inserts an in-flight record, or takes over one that has
 * expired or whose lease ran out while it was still in flight with no submission linked.
 * Otherwise returns the existing record for the caller to replay or refuse.
 */
export async function claimIdempotencyKey(
  db: Db,
  row: Pick<
    IdempotencyRow,
    "agentId" | "key" | "requestHash" | "createdAt" | "leaseUntil" | "expiresAt"
  >,
): Promise<IdempotencyClaim> {
  const now = row.createdAt;
  const res = await db
    .insert(idempotencyKeys)
    .values({ ...row, state: "in-flight", submissionId: null })
    .onConflictDoUpdate({
      target: [idempotencyKeys.agentId, idempotencyKeys.key],
      set: {
        requestHash: row.requestHash,
        state: "in-flight",
        submissionId: null,
        responseStatus: null,
        responseBody: null,
        createdAt: row.createdAt,
        leaseUntil: row.leaseUntil,
        expiresAt: row.expiresAt,
      },
      setWhere: or(
        lt(idempotencyKeys.expiresAt, now),
        and(
          eq(idempotencyKeys.state, "in-flight"),
          lt(idempotencyKeys.leaseUntil, now),
          sql`${idempotencyKeys.submissionId} IS NULL`,
        ),
      ),
    });
  if (res.meta.changes > 0) return { kind: "claimed" };
  const record = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.agentId, row.agentId), eq(idempotencyKeys.key, row.key)))
    .get();
  if (!record) throw new Error("idempotency record vanished after a conflict");
  return { kind: "existing", record };
}

/** Releases a claim whose request failed before creating anything, so a retry may proceed. */
export async function releaseIdempotencyKey(db: Db, agentId: string, key: string): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.agentId, agentId),
        eq(idempotencyKeys.key, key),
        eq(idempotencyKeys.state, "in-flight"),
      ),
    );
}

/** Deletes expired records; returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: number): Promise<number> {
  const res = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now));
  return res.meta.changes;
}
