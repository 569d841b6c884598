/**
 * @module db/queries/idempotency
 * Idempotency records for submit, scoped per agent. Invariants: a key is claimed by exactly
 * one request at a time, in the same transaction as the submission it creates
 * (`insertSubmission`), or recorded at once with a refusal that created nothing
 * (`recordIdempotentAnswer`); a `done` record replays its stored answer, status and body,
 * until it expires (at least 24 hours); an expired record is replaced by the next claim.
 */
import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../db.ts";
import { idempotencyKeys, type IdempotencyRow } from "../schema.ts";

/**
 * When a new claim or answer may take a key over (the `WHERE` of an upsert on
 * `idempotency_keys`, `excluded` being the new row): the record expired, or it is an in-flight
 * claim past its lease whose submission was never written. One rule for both writers.
 */
export const IDEMPOTENCY_TAKEOVER_SQL = `idempotency_keys.expires_at < excluded.created_at
  OR (idempotency_keys.state = 'in-flight'
    AND idempotency_keys.lease_until < excluded.created_at
    AND NOT EXISTS (SELECT 1 FROM submissions
      WHERE submissions.id = idempotency_keys.submission_id))`;

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

/** A final answer to record under a key, for a request that created nothing. */
export type IdempotentAnswerInput = {
  agentId: string;
  key: string;
  requestHash: string;
  status: number;
  body: string;
  now: number;
  expiresAt: number;
};

/**
 * Records `answer` as the key's final answer (`done`, no submission), unless a live record
 * already holds the key: one unexpired, or in flight under its lease or with its submission.
 * Returns false when it did not record (the caller answers from the record that holds it).
 */
export async function recordIdempotentAnswer(
  db: Db,
  answer: IdempotentAnswerInput,
): Promise<boolean> {
  const res = await db.$client
    .prepare(
      `INSERT INTO idempotency_keys (agent_id, key, request_hash, state, submission_id,
        response_status, response_body, created_at, lease_until, expires_at)
      VALUES (?1, ?2, ?3, 'done', NULL, ?4, ?5, ?6, ?6, ?7)
      ON CONFLICT (agent_id, key) DO UPDATE SET request_hash = excluded.request_hash,
        state = 'done', submission_id = NULL, response_status = excluded.response_status,
        response_body = excluded.response_body, created_at = excluded.created_at,
        lease_until = excluded.lease_until, expires_at = excluded.expires_at
      WHERE ${IDEMPOTENCY_TAKEOVER_SQL}`,
    )
    .bind(
      answer.agentId,
      answer.key,
      answer.requestHash,
      answer.status,
      answer.body,
      answer.now,
      answer.expiresAt,
    )
    .run();
  return res.meta.changes > 0;
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
