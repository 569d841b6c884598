/**
 * @module db
 * The platform's D1 access: the drizzle schema and plain query functions that take the
 * database first (`findApiKey(db, id)`). No repository classes, no clock: callers pass `now`.
 */
export * from "./db.ts";
export * from "./schema.ts";
export * from "./schema-scores.ts";
export * from "./schema-webhooks.ts";
export * from "./schema-usage.ts";
export * from "./schema-audit.ts";
export * from "./schema-cost.ts";
export * from "./schema-private.ts";
export * from "./schema-versions.ts";
export * from "./schema-gateway.ts";
export * from "./keys.ts";
export * from "./queries/principals.ts";
export * from "./queries/challenges.ts";
export * from "./queries/submissions.ts";
export * from "./queries/idempotency.ts";
export * from "./queries/scores.ts";
export * from "./queries/webhooks.ts";
export * from "./queries/usage.ts";
export * from "./queries/limits.ts";
export * from "./queries/leaderboard.ts";
export * from "./queries/audit.ts";
export * from "./queries/baselines.ts";
export * from "./queries/cost.ts";
export * from "./queries/private.ts";
export * from "./queries/versions.ts";
export * from "./queries/promotion.ts";
export * from "./queries/version-report.ts";
export * from "./queries/observations.ts";
export * from "./queries/gateway.ts";
