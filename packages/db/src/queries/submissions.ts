/**
 * @module db/queries/submissions
 * Submissions. Invariants: the iteration number is computed inside the INSERT (max + 1 for
 * the agent × challenge, unique index as a backstop), under the same statement's guards
 * (challenge published, agent entered, quota and cooldown), so no interleaving of requests
 * can skip, reuse or exceed an iteration. Status moves forward only.
 */
import { and, desc, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../index.ts";
import {
  challenges,
  idempotencyKeys,
  submissions,
  type ChallengeRow,
  type SubmissionRow,
  type SubmissionStatus,
} from "../schema.ts";

/** A new submission as the ingest API writes it; the iteration is assigned by SQL. */
export type NewSubmission = Omit<
  SubmissionRow,
  "iteration" | "status" | "failureReason" | "queuedAt" | "runningAt" | "scoredAt" | "failedAt"
>;

/** The conditions under which the insert may happen, checked in the same statement. */
export type SubmissionGuard = {
  maxIterations: number;
  /** No earlier submission of this agent on this challenge at or after this time. */
  cooldownSince: number | null;
};

/** The idempotency record to link to the new submission in the same batch. */
export type IdempotencyLink = { agentId: string; key: string };

/**
 * Inserts the submission with its iteration (max + 1) if the guards hold, and links the
 * idempotency record to it, in one D1 batch (one transaction). Returns the iteration it
 * was given, or null when a guard refused it.
 */
export async function insertSubmission(
  db: Db,
  row: NewSubmission,
  guard: SubmissionGuard,
  link: IdempotencyLink | null,
): Promise<number | null> {
  // Raw D1 statements: drizzle's batch does not take raw INSERT … SELECT statements.
  const mine = "agent_id = ?2 AND challenge_id = ?3";
  const cooldown =
    guard.cooldownSince === null
      ? ""
      : ` AND NOT EXISTS (SELECT 1 FROM submissions WHERE ${mine} AND received_at >= ?13)`;
  const insert = db.$client
    .prepare(
      `INSERT INTO submissions (id, agent_id, challenge_id, iteration, artifact_sha256,
        artifact_key, artifact_size, artifact_type, claims, trace_key, trace_sha256, status,
        received_at)
      SELECT ?1, ?2, ?3, (SELECT COALESCE(MAX(iteration), 0) + 1 FROM submissions WHERE ${mine}),
        ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'received', ?11
      WHERE EXISTS (SELECT 1 FROM challenges WHERE id = ?3 AND status = 'published')
        AND EXISTS (SELECT 1 FROM entries WHERE ${mine})
        AND (SELECT COUNT(*) FROM submissions WHERE ${mine}) < ?12${cooldown}
      RETURNING iteration`,
    )
    .bind(
      row.id,
      row.agentId,
      row.challengeId,
      row.artifactSha256,
      row.artifactKey,
      row.artifactSize,
      row.artifactType,
      row.claims,
      row.traceKey,
      row.traceSha256,
      row.receivedAt,
      guard.maxIterations,
      ...(guard.cooldownSince === null ? [] : [guard.cooldownSince]),
    );
  const statements = [insert];
  if (link) {
    statements.push(
      db.$client
        .prepare(
          `UPDATE idempotency_keys SET submission_id = ?1
          WHERE agent_id = ?2 AND key = ?3 AND EXISTS (SELECT 1 FROM submissions WHERE id = ?1)`,
        )
        .bind(row.id, link.agentId, link.key),
    );
  }
  const [res] = await db.$client.batch<{ iteration: number }>(statements);
  return res?.results[0]?.iteration ?? null;
}

/** What a submit needs to know about a challenge and the calling agent, read at once. */
export type SubmitContext = {
  challenge: ChallengeRow;
  entered: boolean;
  submissions: number;
  lastSubmittedAt: number | null;
};

/** Reads a challenge (by id or slug) with the agent's entry and submission count, in one query. */
export async function findSubmitContext(
  db: Db,
  idOrSlug: string,
  agentId: string,
): Promise<SubmitContext | undefined> {
  const mine = sql`${submissions.agentId} = ${agentId} AND ${submissions.challengeId} = ${challenges.id}`;
  const row = await db
    .select({
      challenge: challenges,
      entered: sql<number>`EXISTS (SELECT 1 FROM entries WHERE entries.agent_id = ${agentId} AND entries.challenge_id = ${challenges.id})`,
      count: sql<number>`(SELECT COUNT(*) FROM submissions WHERE ${mine})`,
      last: sql<number | null>`(SELECT MAX(received_at) FROM submissions WHERE ${mine})`,
    })
    .from(challenges)
    .where(or(eq(challenges.id, idOrSlug), eq(challenges.slug, idOrSlug)))
    .get();
  if (!row) return undefined;
  return {
    challenge: row.challenge,
    entered: Boolean(row.entered),
    submissions: row.count,
    lastSubmittedAt: row.last,
  };
}

/** Deletes a submission that was never enqueued (undo of a failed submit). */
export async function deleteReceivedSubmission(db: Db, id: string): Promise<void> {
  await db
    .delete(submissions)
    .where(and(eq(submissions.id, id), eq(submissions.status, "received")));
}

/** Finds a submission by id. */
export async function findSubmission(db: Db, id: string): Promise<SubmissionRow | undefined> {
  return db.select().from(submissions).where(eq(submissions.id, id)).get();
}

/** Lists an agent's submissions on a challenge, newest iteration first. */
export async function listAgentSubmissions(
  db: Db,
  agentId: string,
  challengeId: string,
): Promise<SubmissionRow[]> {
  return db
    .select()
    .from(submissions)
    .where(and(eq(submissions.agentId, agentId), eq(submissions.challengeId, challengeId)))
    .orderBy(desc(submissions.iteration))
    .all();
}

/** Whether any submission or challenge still references this R2 key. */
export async function isObjectReferenced(db: Db, key: string): Promise<boolean> {
  const [subs, bundles] = await db.batch([
    db
      .select({ id: submissions.id })
      .from(submissions)
      .where(or(eq(submissions.artifactKey, key), eq(submissions.traceKey, key)))
      .limit(1),
    db.select({ id: challenges.id }).from(challenges).where(eq(challenges.bundleKey, key)).limit(1),
  ]);
  return subs.length > 0 || bundles.length > 0;
}

const TIMESTAMP_COLUMN = {
  received: "receivedAt",
  queued: "queuedAt",
  running: "runningAt",
  scored: "scoredAt",
  failed: "failedAt",
} as const satisfies Record<SubmissionStatus, keyof SubmissionRow>;

/** The statuses each status may follow: the lifecycle only moves forward. */
const ALLOWED_FROM: Record<SubmissionStatus, readonly SubmissionStatus[]> = {
  received: [],
  queued: ["received"],
  running: ["received", "queued"],
  scored: ["running"],
  failed: ["received", "queued", "running"],
};

/**
 * Moves a submission to `to`, stamping that status's time, only from a status that may
 * precede it. Returns false when the submission is missing or already past that point.
 */
export async function transitionSubmission(
  db: Db,
  id: string,
  to: SubmissionStatus,
  now: number,
  failureReason: string | null = null,
): Promise<boolean> {
  const from = ALLOWED_FROM[to];
  if (from.length === 0) return false;
  const res = await db
    .update(submissions)
    .set({
      status: to,
      [TIMESTAMP_COLUMN[to]]: now,
      ...(to === "failed" ? { failureReason: failureReason ?? "unknown" } : {}),
    })
    .where(and(eq(submissions.id, id), inArray(submissions.status, [...from])));
  return res.meta.changes > 0;
}

/** The idempotency answer to record together with a status change. */
export type IdempotencyAnswer = IdempotencyLink & { status: number; body: string };

/**
 * Marks a received submission queued and, in the same batch, records the idempotent answer
 * of the request that created it.
 */
export async function markSubmissionQueued(
  db: Db,
  id: string,
  now: number,
  answer: IdempotencyAnswer | null,
): Promise<void> {
  const queued = db
    .update(submissions)
    .set({ status: "queued", queuedAt: now })
    .where(and(eq(submissions.id, id), eq(submissions.status, "received")));
  if (!answer) {
    await queued;
    return;
  }
  await db.batch([
    queued,
    db
      .update(idempotencyKeys)
      .set({ state: "done", responseStatus: answer.status, responseBody: answer.body })
      .where(and(eq(idempotencyKeys.agentId, answer.agentId), eq(idempotencyKeys.key, answer.key))),
  ]);
}
