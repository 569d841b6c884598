/**
 * @module db/queries/audit
 * The audit trail's writes and reads (`audit_events`, `submission_removals`). Invariants: the
 * only statement this module (or any other) runs against `audit_events` is an INSERT — the
 * migration's triggers abort any UPDATE or DELETE; each write that changes a score, a ranking
 * or a version appends its event in the same D1 batch as the change, guarded by the same
 * condition, so an event exists exactly when its change happened; events a retried step can
 * write twice have deterministic ids (`INSERT OR IGNORE`).
 */
import { and, asc, eq, gt } from "drizzle-orm";
import type { Result } from "@bouts/result";
import type { Db } from "../db.ts";
import { submissions, type SubmissionStatus } from "../schema.ts";
import {
  auditEvents,
  submissionRemovals,
  type AuditActorKind,
  type AuditEventRow,
  type AuditEventType,
  type AuditScope,
  type SubmissionRemovalRow,
} from "../schema-audit.ts";

/** The column list every audit INSERT names, in the order of its values. */
export const AUDIT_COLUMNS =
  "id, challenge_id, submission_id, agent_id, type, scope, actor_kind, actor_id, cause, before, after, at";

/** One event to append. `before` and `after` are plain data, stored as JSON. */
export interface AuditEventInput {
  id: string;
  challengeId: string;
  submissionId: string | null;
  agentId: string | null;
  type: AuditEventType;
  scope: AuditScope;
  actorKind: AuditActorKind;
  actorId: string;
  cause: string;
  before: unknown;
  after: unknown;
  at: number;
}

const json = (v: unknown): string | null =>
  v === null || v === undefined ? null : JSON.stringify(v);

/**
 * The INSERT of one event, for a caller's batch: appended only when `guard` (SQL over bound
 * parameters ?13 onwards, `1` for none) holds, and at most once per id.
 */
export function prepareAuditEvent(
  d1: D1Database,
  e: AuditEventInput,
  guard = "1",
  guardParams: unknown[] = [],
): D1PreparedStatement {
  return d1
    .prepare(
      `INSERT OR IGNORE INTO audit_events (${AUDIT_COLUMNS})
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12 WHERE ${guard}`,
    )
    .bind(
      e.id,
      e.challengeId,
      e.submissionId,
      e.agentId,
      e.type,
      e.scope,
      e.actorKind,
      e.actorId,
      e.cause.slice(0, 2000),
      json(e.before),
      json(e.after),
      e.at,
      ...guardParams,
    );
}

/** Appends one event on its own; returns whether it was new (a repeated id inserts nothing). */
export async function appendAuditEvent(db: Db, e: AuditEventInput): Promise<boolean> {
  const r = await prepareAuditEvent(db.$client, e).run();
  return r.meta.changes > 0;
}

/** A submission's events, oldest first (at most `limit`, after `afterSeq`). */
export async function listSubmissionHistory(
  db: Db,
  submissionId: string,
  page: { afterSeq?: number; limit?: number } = {},
): Promise<AuditEventRow[]> {
  return db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.submissionId, submissionId), gt(auditEvents.seq, page.afterSeq ?? 0)))
    .orderBy(asc(auditEvents.seq))
    .limit(page.limit ?? 100)
    .all();
}

/** A challenge's public (`challenge`-scope) events, oldest first. */
export async function listChallengeHistory(
  db: Db,
  challengeId: string,
  page: { afterSeq?: number; limit?: number } = {},
): Promise<AuditEventRow[]> {
  return db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.challengeId, challengeId),
        eq(auditEvents.scope, "challenge"),
        gt(auditEvents.seq, page.afterSeq ?? 0),
      ),
    )
    .orderBy(asc(auditEvents.seq))
    .limit(page.limit ?? 100)
    .all();
}

/** An operator's removal of a scored submission from its board. */
export interface RemovalRequest {
  submissionId: string;
  operatorId: string;
  reason: string;
  now: number;
  /** The id of the `removed` event. */
  eventId: string;
}

/** Why a removal was refused; nothing was written. */
export type RemovalError =
  | { reason: "not-found" }
  | { reason: "not-scored"; status: SubmissionStatus }
  | { reason: "already-removed"; removal: SubmissionRemovalRow };

/**
 * Records that an operator removed a scored submission from its board, with the reason, and
 * appends the `removed` event — one batch, so neither exists without the other. The score row
 * stays (history is kept); the board drops it at its next rebuild, which the caller runs.
 */
export async function removeSubmission(
  db: Db,
  r: RemovalRequest,
): Promise<Result<SubmissionRemovalRow, RemovalError>> {
  const d1 = db.$client;
  const [removal] = await d1.batch([
    d1
      .prepare(
        `INSERT INTO submission_removals (submission_id, operator_id, reason, removed_at)
         SELECT id, ?2, ?3, ?4 FROM submissions WHERE id = ?1 AND status = 'scored'
         ON CONFLICT (submission_id) DO NOTHING`,
      )
      .bind(r.submissionId, r.operatorId, r.reason.slice(0, 2000), r.now),
    d1
      .prepare(
        `INSERT OR IGNORE INTO audit_events (${AUDIT_COLUMNS})
         SELECT ?5, s.challenge_id, s.id, s.agent_id, 'removed', 'submission', 'operator', ?2, ?3,
           json_object('status', 'scored', 'ranked', json('true'), 'score', sc.final_rounded),
           json_object('status', 'scored', 'ranked', json('false'), 'score', sc.final_rounded, 'reason', ?3),
           ?4
         FROM submissions s JOIN scores sc ON sc.submission_id = s.id
         JOIN submission_removals m ON m.submission_id = s.id
         WHERE s.id = ?1 AND m.removed_at = ?4 AND m.operator_id = ?2`,
      )
      .bind(r.submissionId, r.operatorId, r.reason.slice(0, 2000), r.now, r.eventId),
  ]);
  const existing = await findRemoval(db, r.submissionId);
  if ((removal?.meta.changes ?? 0) > 0 && existing) return { ok: true, value: existing };
  if (existing) return { ok: false, error: { reason: "already-removed", removal: existing } };
  const row = await db
    .select({ status: submissions.status })
    .from(submissions)
    .where(eq(submissions.id, r.submissionId))
    .get();
  if (!row) return { ok: false, error: { reason: "not-found" } };
  return { ok: false, error: { reason: "not-scored", status: row.status } };
}

/** The removal of a submission, or null. */
export async function findRemoval(
  db: Db,
  submissionId: string,
): Promise<SubmissionRemovalRow | null> {
  return (
    (await db
      .select()
      .from(submissionRemovals)
      .where(eq(submissionRemovals.submissionId, submissionId))
      .get()) ?? null
  );
}
