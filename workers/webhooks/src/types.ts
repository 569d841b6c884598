/**
 * @module webhooks-worker/types
 * Hono typing of the webhook routes: the ingest environment, because the routes sit behind
 * the same API-key authentication (`c.var.principal`).
 */
import type { IngestEnv } from "@bouts/ingest";

/** The Hono environment of every webhook route. */
export type WebhooksEnv = IngestEnv;
