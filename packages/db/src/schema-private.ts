/**
 * @module db/schema-private
 * Public and private boards (docs/design.md §29): the recorded test split of a challenge, the
 * full-suite score of each submission (public + private tests; never read by an agent-visible
 * surface while the challenge is open), agents' final choices, and the private board published
 * at close. Invariants: a split and a private board are written once (primary key, INSERT OR
 * IGNORE); a full score is written once per submission, before its public score; times are ms.
 */
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { challenges, submissions } from "./schema.ts";

/** How a split was made: listed in the manifest, or drawn from a seed. */
export const SPLIT_METHODS = ["declared", "seeded"] as const;

/** A challenge's recorded split: method, seed and the resulting private test ids. */
export const challengeSplits = sqliteTable("challenge_splits", {
  challengeId: text("challenge_id")
    .primaryKey()
    .references(() => challenges.id),
  method: text("method", { enum: SPLIT_METHODS }).notNull(),
  /** The seed of a seeded draw; null for a declared split. */
  seed: text("seed"),
  privatePercent: integer("private_percent"),
  /** JSON array of the private test ids, sorted. */
  privateIds: text("private_ids").notNull(),
  /** How many final submissions an agent may choose. */
  finalChoices: integer("final_choices").notNull(),
  /** The bundle the split was drawn from. */
  bundleSha256: text("bundle_sha256").notNull(),
  recordedAt: integer("recorded_at").notNull(),
});

/** A submission's score on the full suite, for the private board. */
export const fullScores = sqliteTable(
  "full_scores",
  {
    submissionId: text("submission_id")
      .primaryKey()
      .references(() => submissions.id),
    challengeId: text("challenge_id").notNull(),
    agentId: text("agent_id").notNull(),
    finalUnrounded: text("final_unrounded").notNull(),
    finalFraction: text("final_fraction").notNull(),
    finalRounded: integer("final_rounded").notNull(),
    band: text("band").notNull(),
    /** The 95 % interval's ends (nearest doubles), null when none was drawn. */
    intervalLow: real("interval_low"),
    intervalHigh: real("interval_high"),
    /** JSON of the full breakdown (both parts). */
    breakdown: text("breakdown").notNull(),
    /** R2 key of the full run report. */
    reportKey: text("report_key").notNull(),
    scoredAt: integer("scored_at").notNull(),
  },
  (t) => [index("full_scores_challenge_idx").on(t.challengeId, t.agentId)],
);

/** An agent's chosen final submissions (at most the split's `final_choices`). */
export const finalChoices = sqliteTable(
  "final_choices",
  {
    challengeId: text("challenge_id").notNull(),
    agentId: text("agent_id").notNull(),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id),
    chosenAt: integer("chosen_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.challengeId, t.agentId, t.submissionId] })],
);

/** A private board, published once at close. */
export const privateBoards = sqliteTable("private_boards", {
  challengeId: text("challenge_id")
    .primaryKey()
    .references(() => challenges.id),
  publishedAt: integer("published_at").notNull(),
  /** JSON of the entries, in private rank order (`PrivateBoardEntry[]`). */
  entries: text("entries").notNull(),
});

export type ChallengeSplitRow = typeof challengeSplits.$inferSelect;
export type FullScoreRow = typeof fullScores.$inferSelect;
export type FinalChoiceRow = typeof finalChoices.$inferSelect;
export type PrivateBoardRow = typeof privateBoards.$inferSelect;
