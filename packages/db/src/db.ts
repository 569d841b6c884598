/**
 * @module db/db
 * The typed database handle: the drizzle schema of every table and `createDb`, which wraps a D1
 * binding once per binding. A leaf of the package: the query modules take its `Db` type, and
 * `index.ts` re-exports it, so no query module imports the package's entry.
 */
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as coreSchema from "./schema.ts";
import * as scoreSchema from "./schema-scores.ts";
import * as webhookSchema from "./schema-webhooks.ts";
import * as usageSchema from "./schema-usage.ts";

const schema = { ...coreSchema, ...scoreSchema, ...webhookSchema, ...usageSchema };

/** The typed database handle every query function takes first (`$client` is the raw D1). */
export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

/** The most parameters D1 binds in one statement (a longer multi-row insert is refused). */
export const D1_MAX_BOUND_PARAMETERS = 100;

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
