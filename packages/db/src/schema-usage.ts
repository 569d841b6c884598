/**
 * @module db/schema-usage
 * Runner time, per run: what each scoring attempt cost the runner fleet, charged to the agent
 * that submitted. Invariants: one row per runner request (primary key: the run id and its
 * kind), written by the score role after the runner answered, so a redelivered message never
 * charges twice; times are integer ms since the epoch.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { submissions } from "./schema.ts";

/** What the runner was asked to do: the submission's run, or a generated suite's run. */
export const RUNNER_USAGE_KINDS = ["run", "generated"] as const;

/** One runner request's wall time, charged to an agent. */
export const runnerUsage = sqliteTable(
  "runner_usage",
  {
    runId: text("run_id").notNull(),
    kind: text("kind", { enum: RUNNER_USAGE_KINDS }).notNull(),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id),
    agentId: text("agent_id").notNull(),
    challengeId: text("challenge_id").notNull(),
    runnerMs: integer("runner_ms").notNull(),
    recordedAt: integer("recorded_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.kind] }),
    index("runner_usage_agent_idx").on(t.agentId, t.recordedAt),
  ],
);

export type RunnerUsageRow = typeof runnerUsage.$inferSelect;
export type RunnerUsageKind = (typeof RUNNER_USAGE_KINDS)[number];
