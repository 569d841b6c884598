/**
 * @module db/schema-scores
 * What the score role writes: the lease of each scoring attempt, the score with its full
 * breakdown, and the breakdown's parts in queryable rows (components, judgements, findings,
 * test counts). Invariants: one score per submission (primary key), written in the same D1
 * batch as the submission's `scored` status, so a score never exists half-written; JSON
 * columns hold contract-validated text; times are integer ms since the epoch.
 */
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { submissions } from "./schema.ts";

/** One row per submission the score role has picked up: its lease and attempt count. */
export const scoringRuns = sqliteTable(
  "scoring_runs",
  {
    submissionId: text("submission_id")
      .primaryKey()
      .references(() => submissions.id),
    attempts: integer("attempts").notNull(),
    leaseUntil: integer("lease_until").notNull(),
    lastError: text("last_error"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("scoring_runs_lease_idx").on(t.leaseUntil)],
);

/** The score of a scored submission and its published breakdown. */
export const scores = sqliteTable(
  "scores",
  {
    submissionId: text("submission_id")
      .primaryKey()
      .references(() => submissions.id),
    challengeId: text("challenge_id").notNull(),
    agentId: text("agent_id").notNull(),
    iteration: integer("iteration").notNull(),
    profile: text("profile").notNull(),
    profileVersion: integer("profile_version").notNull(),
    family: text("family"),
    /** Exact decimal text of the unrounded final score, e.g. "82.075". */
    finalUnrounded: text("final_unrounded").notNull(),
    /** Exact fraction of the unrounded final score, e.g. "3283/40". */
    finalFraction: text("final_fraction").notNull(),
    finalRounded: integer("final_rounded").notNull(),
    band: text("band").notNull(),
    /** JSON of the engine's Breakdown (schema bouts.breakdown/v1). */
    breakdown: text("breakdown").notNull(),
    /** JSON of the engine input it was computed from, so it can be re-computed. */
    input: text("input").notNull(),
    humanReview: integer("human_review", { mode: "boolean" }).notNull(),
    judgeMode: text("judge_mode").notNull(),
    /** R2 key of the full RunReport (owner-only: it holds the submission's sources). */
    reportKey: text("report_key").notNull(),
    /**
     * JSON of what the run spent as its telemetry says (tokens per model, agent wall time:
     * `@bouts/telemetry` TraceUsage); null when the submission carried no trace.
     */
    usage: text("usage"),
    /** The challenge version (bundle) the score was computed on (docs/design.md §30). */
    challengeVersion: integer("challenge_version").notNull().default(1),
    /**
     * The canonical hash of the files the run used (RunReport.filesSha256): "the same code" for
     * calibration's "could the agent have seen this outcome" (docs/design.md §40). Null for
     * reports without one.
     */
    filesSha256: text("files_sha256"),
    submittedAt: integer("submitted_at").notNull(),
    enteredAt: integer("entered_at").notNull(),
    scoredAt: integer("scored_at").notNull(),
  },
  (t) => [
    index("scores_challenge_idx").on(t.challengeId, t.finalRounded),
    index("scores_agent_idx").on(t.agentId, t.challengeId, t.iteration),
    index("scores_files_idx").on(t.challengeId, t.filesSha256),
  ],
);

/** Each weighted component of a score, for queries across submissions. */
export const scoreComponents = sqliteTable(
  "score_components",
  {
    submissionId: text("submission_id")
      .notNull()
      .references(() => scores.submissionId),
    key: text("key").notNull(),
    weight: integer("weight").notNull(),
    score: real("score").notNull(),
    scoreText: text("score_text").notNull(),
    contributionText: text("contribution_text").notNull(),
  },
  (t) => [primaryKey({ columns: [t.submissionId, t.key] })],
);

/** Every judge's judgement that went into a score (owner view; public breakdowns aggregate). */
export const judgements = sqliteTable(
  "judgements",
  {
    submissionId: text("submission_id")
      .notNull()
      .references(() => scores.submissionId),
    task: text("task").notNull(),
    /** The deliverable's path for deliverable judgements, else "". */
    target: text("target").notNull(),
    judge: text("judge").notNull(),
    source: text("source").notNull(),
    dimensions: text("dimensions"),
    score: real("score"),
    rationale: text("rationale").notNull(),
    injectionSuspected: integer("injection_suspected", { mode: "boolean" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.submissionId, t.task, t.target, t.judge] })],
);

/** Security findings of a scored submission. */
export const findings = sqliteTable(
  "findings",
  {
    submissionId: text("submission_id")
      .notNull()
      .references(() => scores.submissionId),
    ordinal: integer("ordinal").notNull(),
    tool: text("tool").notNull(),
    rule: text("rule").notNull(),
    cwe: text("cwe"),
    severity: text("severity").notNull(),
    file: text("file").notNull(),
    line: integer("line").notNull(),
    message: text("message").notNull(),
  },
  (t) => [primaryKey({ columns: [t.submissionId, t.ordinal] })],
);

/** Passed / total per test category (static) or severity (adversarial). */
export const testCounts = sqliteTable(
  "test_counts",
  {
    submissionId: text("submission_id")
      .notNull()
      .references(() => scores.submissionId),
    suite: text("suite", { enum: ["static", "adversarial"] }).notNull(),
    bucket: text("bucket").notNull(),
    passed: integer("passed").notNull(),
    total: integer("total").notNull(),
  },
  (t) => [primaryKey({ columns: [t.submissionId, t.suite, t.bucket] })],
);

export type ScoringRunRow = typeof scoringRuns.$inferSelect;
export type ScoreRow = typeof scores.$inferSelect;
