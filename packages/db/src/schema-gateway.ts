/**
 * @module db/schema-gateway
 * The metering gateway's record of model calls (docs/gateway.md): one row per call an agent made
 * through the platform's OpenAI-compatible proxy, written by the gateway role once the call ended.
 * Invariants: a row names the agent whose key made the call and the challenge it entered; tokens
 * are the upstream's own figures, type-checked, or null (never coerced); times are integer ms
 * since the epoch.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agents, challenges } from "./schema.ts";

/**
 * Why a call ended without a whole answer from the upstream: no connection (`unreachable`), past
 * the gateway's deadline (`timeout`), an answer over the gateway's byte bound (`oversize`), or a
 * stream cut before its end (`interrupted`).
 */
export const GATEWAY_CALL_FAILURES = ["unreachable", "timeout", "oversize", "interrupted"] as const;

/** One model call proxied by the gateway. */
export const gatewayCalls = sqliteTable(
  "gateway_calls",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id),
    challengeId: text("challenge_id")
      .notNull()
      .references(() => challenges.id),
    /** The model the upstream's answer names, else the one the request asked for. */
    model: text("model").notNull(),
    /** The upstream's `usage.prompt_tokens`; null when the answer carried no valid usage. */
    tokensIn: integer("tokens_in"),
    /** The upstream's `usage.completion_tokens`; null with `tokens_in`. */
    tokensOut: integer("tokens_out"),
    /** The upstream's HTTP status; null when no answer arrived (`failure` says why). */
    status: integer("status"),
    /** Why the call did not end with a whole answer; null when it did. */
    failure: text("failure", { enum: GATEWAY_CALL_FAILURES }),
    streamed: integer("streamed", { mode: "boolean" }).notNull(),
    /** Bytes of the request body the agent sent. */
    requestBytes: integer("request_bytes").notNull(),
    startedAt: integer("started_at").notNull(),
    finishedAt: integer("finished_at").notNull(),
  },
  (t) => [index("gateway_calls_entry_idx").on(t.agentId, t.challengeId, t.startedAt)],
);

export type GatewayCallRow = typeof gatewayCalls.$inferSelect;
export type GatewayCallFailure = (typeof GATEWAY_CALL_FAILURES)[number];
