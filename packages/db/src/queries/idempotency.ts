/**
 * @module db/queries/idempotency
 * Idempotency records for submit, scoped per agent. Invariants: a key is claimed by exactly
 * one request at a time, in the same transaction as the submission it creates
 * (`insertSubmission`); a `done` record replays its stored answer until it expires (at least
 * 24 hours); an expired record is replaced by the next claim.
 */
import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../index.ts";
import { idempotencyKeys, type IdempotencyRow } from "../schema.ts";

/** Finds the record of an idempotency key. */
export async function findIdempotencyRecord(
  db: Db,
  agentId: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  return db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.agentId, agentId), eq(idempotencyKeys.key, key)))
    .get();
}

/**
 * Releases the claim a failed request made (it names that request's submission), so a retry
 * with the same key may proceed.
 */
export async function releaseIdempotencyKey(
  db: Db,
  agentId: string,
  key: string,
  submissionId: string,
): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.agentId, agentId),
        eq(idempotencyKeys.key, key),
        eq(idempotencyKeys.submissionId, submissionId),
        eq(idempotencyKeys.state, "in-flight"),
      ),
    );
}

/** Deletes expired records; returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: number): Promise<number> {
  const res = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now));
  return res.meta.changes;
}
