/**
 * @module ingest/types
 * Hono typing for the ingest app: the Worker's generated `Env` and the per-request caller.
 */

import type { KeyOwner } from "@bouts/db";

/** Who is calling, resolved from the API key. */
export type Principal = KeyOwner;

/** The Hono environment of every ingest route. */
export type IngestEnv = { Bindings: Env; Variables: { principal: Principal } };
