/**
 * @module db/queries/gateway
 * The metering gateway's calls: the gateway role records each proxied model call; the score role
 * sums an entry's calls over a window of time (docs/gateway.md). Invariants: a sum counts only the
 * named agent's calls on the named challenge; the window is the half-open interval (from, to] of
 * `started_at`; tokens are summed over the calls that reported usage, and the others are counted.
 */
import type { ObservedModelUsage, ObservedUsage } from "@bouts/telemetry";
import type { Db } from "../db.ts";
import { gatewayCalls, type GatewayCallRow } from "../schema-gateway.ts";

/** Records one proxied model call. */
export async function recordGatewayCall(db: Db, row: GatewayCallRow): Promise<void> {
  await db.insert(gatewayCalls).values(row);
}

/** Whose calls to sum, and over which window (epoch ms; `from` exclusive, `to` inclusive). */
export interface GatewayUsageQuery {
  agentId: string;
  challengeId: string;
  /** Calls that started after this instant count; null: every call up to `to`. */
  from: number | null;
  to: number;
}

/**
 * The usage the gateway counted for one agent on one challenge within (from, to]: calls per
 * model (sorted by name), tokens over the calls that carried usage, and how many did not. Null
 * when the window holds no call, so "no call seen" is never a zero.
 */
export async function sumGatewayUsage(db: Db, q: GatewayUsageQuery): Promise<ObservedUsage | null> {
  const { results } = await db.$client
    .prepare(
      `SELECT model,
              COUNT(*) AS calls,
              SUM(CASE WHEN tokens_in IS NULL OR tokens_out IS NULL THEN 1 ELSE 0 END) AS without_usage,
              SUM(CASE WHEN tokens_in IS NULL OR tokens_out IS NULL THEN 0 ELSE tokens_in END) AS tokens_in,
              SUM(CASE WHEN tokens_in IS NULL OR tokens_out IS NULL THEN 0 ELSE tokens_out END) AS tokens_out
         FROM gateway_calls
        WHERE agent_id = ?1 AND challenge_id = ?2 AND started_at > ?3 AND started_at <= ?4
        GROUP BY model`,
    )
    // Every stored instant is ≥ 0, so "no lower bound" is any negative number.
    .bind(q.agentId, q.challengeId, q.from ?? -1, q.to)
    .all<{
      model: string;
      calls: number;
      without_usage: number;
      tokens_in: number;
      tokens_out: number;
    }>();
  if (results.length === 0) return null;
  const models: ObservedModelUsage[] = results
    .map((r) => ({
      model: r.model,
      calls: r.calls,
      tokensIn: r.tokens_in,
      tokensOut: r.tokens_out,
    }))
    // The order of the trace's usage (telemetry's extractUsage): by name, code unit by code unit.
    .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  const sum = (pick: (m: ObservedModelUsage) => number) =>
    models.reduce((total, m) => total + pick(m), 0);
  return {
    source: "gateway",
    calls: sum((m) => m.calls),
    tokensIn: sum((m) => m.tokensIn),
    tokensOut: sum((m) => m.tokensOut),
    callsWithoutUsage: results.reduce((total, r) => total + r.without_usage, 0),
    models,
    from: q.from ?? 0,
    to: q.to,
  };
}
