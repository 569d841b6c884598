/**
 * @module db/schema-audit
 * The append-only audit trail: one row per change to a score, a ranking or a challenge
 * version (scored, failed, rejudged, rescored, promoted, discarded, rebuilt, removed), with
 * who did it (`actor_kind`, `actor_id`), why (`cause`), when (`at`) and the state before and
 * after (JSON). Invariants: rows are only ever inserted — triggers in the migration abort any
 * UPDATE or DELETE, and no query function issues one; `id` is deterministic for events a
 * retried step could write twice, so a repeat inserts nothing; `seq` orders the trail. Also the
 * operator removals of submissions from a board (`submission_removals`), which a rebuild and
 * every publish leave out.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { operators, submissions } from "./schema.ts";

/** Every kind of audited change. */
export const AUDIT_EVENT_TYPES = [
  "scored",
  "failed",
  "rejudged",
  "rescored",
  "promoted",
  "discarded",
  "rebuilt",
  "removed",
  "closed",
  "final-chosen",
  "private-board-published",
  "version-uploaded",
] as const;

/**
 * Who an event belongs to: `submission` events are read by the submission's owner and the
 * challenge's operator; `challenge` events are public.
 */
export const AUDIT_SCOPES = ["submission", "challenge"] as const;

/** Who made a change: a platform role (`system`, `actor_id` names it) or an operator. */
export const AUDIT_ACTOR_KINDS = ["system", "operator"] as const;

/** The append-only audit trail. */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    /** Insertion order; never reused (AUTOINCREMENT). */
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    /** Deterministic for retried steps (`scored:<submission>`), else a uuid. */
    id: text("id").notNull().unique(),
    challengeId: text("challenge_id").notNull(),
    submissionId: text("submission_id"),
    /** The owner of the submission, for submission events. */
    agentId: text("agent_id"),
    type: text("type", { enum: AUDIT_EVENT_TYPES }).notNull(),
    scope: text("scope", { enum: AUDIT_SCOPES }).notNull(),
    actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    /** The operator's id, or the platform role (`score`, `leaderboard`). */
    actorId: text("actor_id").notNull(),
    cause: text("cause").notNull(),
    /** JSON of the state before the change, or null when there was none. */
    before: text("before"),
    /** JSON of the state after the change. */
    after: text("after"),
    at: integer("at").notNull(),
  },
  (t) => [
    index("audit_events_submission_idx").on(t.submissionId, t.seq),
    index("audit_events_challenge_idx").on(t.challengeId, t.scope, t.seq),
  ],
);

/**
 * Submissions an operator removed from their challenge's board, with the reason. A removed
 * submission keeps its score row (history is never lost) but no longer ranks.
 */
export const submissionRemovals = sqliteTable("submission_removals", {
  submissionId: text("submission_id")
    .primaryKey()
    .references(() => submissions.id),
  operatorId: text("operator_id")
    .notNull()
    .references(() => operators.id),
  reason: text("reason").notNull(),
  removedAt: integer("removed_at").notNull(),
});

export type AuditEventRow = typeof auditEvents.$inferSelect;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];
export type AuditScope = (typeof AUDIT_SCOPES)[number];
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];
export type SubmissionRemovalRow = typeof submissionRemovals.$inferSelect;
