/**
 * @module ingest/types
 * Hono typing for the ingest app: the Worker's generated `Env` and the per-request caller.
 */

/** Who is calling, resolved from the API key. */
export type Principal =
  | { role: "agent"; agentId: string; keyId: string }
  | { role: "operator"; operatorId: string; keyId: string };

/** The Hono environment of every ingest route. */
export type IngestEnv = { Bindings: Env; Variables: { principal: Principal } };
