/**
 * @module ingest/types
 * Hono typing for the ingest routes: the Worker's generated `Env`. The caller
 * (`c.var.principal`) comes from each route's access middleware (@bouts/auth).
 */

export type { Principal } from "@bouts/auth";

/** The Hono environment of every ingest route. */
export type IngestEnv = { Bindings: Env };
