/**
 * @module webhooks-worker/types
 * Hono typing of the webhook routes: the Worker's generated `Env`. The caller
 * (`c.var.principal`) comes from each route's access middleware (@bouts/auth `agentOnly`).
 */

/** The Hono environment of every webhook route. */
export type WebhooksEnv = { Bindings: Env };
