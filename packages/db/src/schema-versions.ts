/**
 * @module db/schema-versions
 * Challenge versions and shadow rescoring (docs/design.md §30). A published challenge's live
 * bundle is `challenges.version`; an operator uploads a candidate version, which goes through
 * challenge QA and then re-runs every counted submission against it (`rescores`) without
 * touching the public board; the operator promotes it (scores and board swapped) or discards
 * it. Invariants: at most one candidate per challenge is open (`rescoring` or `ready`); a
 * version row is never deleted and its bundle never changes; a rescore row holds the complete
 * score write it would promote (JSON), so promotion is one D1 batch that reads only D1; the
 * scores a promotion replaces are kept whole in `superseded_scores` (history is never lost).
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { challenges, operators, submissions } from "./schema.ts";

/**
 * A candidate's life: QA refused it (`qa-failed`, final), its rescores run (`rescoring`), all
 * settled (`ready`), then `promoted` or `discarded` (final). A live submission scored while a
 * candidate is `ready` sends it back to `rescoring` until its own rescore settles.
 */
export const VERSION_STATES = ["qa-failed", "rescoring", "ready", "promoted", "discarded"] as const;

/** A rescore's life: waiting for a runner, leased, settled with a score, or failed. */
export const RESCORE_STATES = ["queued", "running", "scored", "failed"] as const;

/** A bundle version of a published challenge, beyond the one it was published with (1). */
export const challengeVersions = sqliteTable(
  "challenge_versions",
  {
    challengeId: text("challenge_id")
      .notNull()
      .references(() => challenges.id),
    /** 2, 3, …: one more than the highest version the challenge has had. */
    version: integer("version").notNull(),
    /** The live version this candidate was uploaded against (what its diff compares with). */
    baseVersion: integer("base_version").notNull(),
    bundleKey: text("bundle_key").notNull(),
    bundleSha256: text("bundle_sha256").notNull(),
    /** JSON of the manifest read from the bundle. */
    bundleManifest: text("bundle_manifest").notNull(),
    /** JSON of the runner's QA report. */
    qaReport: text("qa_report"),
    qaPassed: integer("qa_passed", { mode: "boolean" }).notNull(),
    state: text("state", { enum: VERSION_STATES }).notNull(),
    /** The operator's note on what changed (shown in the diff report and the audit trail). */
    note: text("note").notNull(),
    createdBy: text("created_by")
      .notNull()
      .references(() => operators.id),
    createdAt: integer("created_at").notNull(),
    /** Promotion or discard: who, when, and a random id tying the batch's statements together. */
    decidedBy: text("decided_by"),
    decidedAt: integer("decided_at"),
    decisionId: text("decision_id"),
  },
  (t) => [
    primaryKey({ columns: [t.challengeId, t.version] }),
    index("challenge_versions_state_idx").on(t.challengeId, t.state),
  ],
);

/** One counted submission re-run against a candidate version. */
export const rescores = sqliteTable(
  "rescores",
  {
    challengeId: text("challenge_id").notNull(),
    version: integer("version").notNull(),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id),
    agentId: text("agent_id").notNull(),
    state: text("state", { enum: RESCORE_STATES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: integer("lease_until").notNull().default(0),
    /** When the next attempt is due after a failure on our side (0: now). */
    retryAt: integer("retry_at").notNull().default(0),
    /** First failure on our side: the retry window counts from here. */
    waitingSince: integer("waiting_since"),
    /** The last failure on our side (while queued), or why it failed (failed). */
    error: text("error"),
    /** JSON of the complete score write (`ScoreWrite`) the promotion applies; null until scored. */
    scoreWrite: text("score_write"),
    /** JSON of the full-suite score row of a split challenge; null otherwise. */
    fullScore: text("full_score"),
    /** JSON of every test whose verdict differs from the live score's (operator-only). */
    changedTests: text("changed_tests"),
    finalRounded: integer("final_rounded"),
    finalUnrounded: text("final_unrounded"),
    queuedAt: integer("queued_at").notNull(),
    settledAt: integer("settled_at"),
  },
  (t) => [
    primaryKey({ columns: [t.challengeId, t.version, t.submissionId] }),
    index("rescores_state_idx").on(t.state, t.leaseUntil),
  ],
);

/** A score a promotion replaced, kept whole (append-only). */
export const supersededScores = sqliteTable(
  "superseded_scores",
  {
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id),
    /** The version the score was computed on. */
    version: integer("version").notNull(),
    challengeId: text("challenge_id").notNull(),
    /** JSON of the whole `scores` row as it was. */
    score: text("score").notNull(),
    supersededAt: integer("superseded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.submissionId, t.version] })],
);

export type ChallengeVersionRow = typeof challengeVersions.$inferSelect;
export type RescoreRow = typeof rescores.$inferSelect;
export type VersionState = (typeof VERSION_STATES)[number];
