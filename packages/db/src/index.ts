/**
 * @module db
 * The platform's D1 access: the drizzle schema and plain query functions that take the
 * database first (`findApiKey(db, id)`). No repository classes, no clock: callers pass `now`.
 */
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as coreSchema from "./schema.ts";
import * as scoreSchema from "./schema-scores.ts";
import * as webhookSchema from "./schema-webhooks.ts";
import * as usageSchema from "./schema-usage.ts";

const schema = { ...coreSchema, ...scoreSchema, ...webhookSchema, ...usageSchema };

export * from "./schema.ts";
export * from "./schema-scores.ts";
export * from "./schema-webhooks.ts";
export * from "./schema-usage.ts";
export * from "./keys.ts";
export * from "./queries/principals.ts";
export * from "./queries/challenges.ts";
export * from "./queries/submissions.ts";
export * from "./queries/idempotency.ts";
export * from "./queries/scores.ts";
export * from "./queries/webhooks.ts";
export * from "./queries/usage.ts";
export * from "./queries/limits.ts";

/** The typed database handle every query function takes first (`$client` is the raw D1). */
export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

// One handle per binding: building drizzle's relational config per request costs CPU.
const HANDLES = new WeakMap<D1Database, Db>();

/** Wraps a D1 binding in the typed drizzle handle (cached per binding). */
export function createDb(d1: D1Database): Db {
  let db = HANDLES.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    HANDLES.set(d1, db);
  }
  return db;
}
