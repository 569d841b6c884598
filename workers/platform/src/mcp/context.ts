/**
 * @module platform/mcp/context
 * What every tool and resource of one MCP request acts with: the request's Hono context (the
 * leaderboard reads take it), its bindings, its origin and the verified agent. Invariant: built
 * once per request from an already authenticated agent; nothing here outlives the request.
 */
import type { Context } from "hono";
import type { Principal } from "@bouts/auth";
import type { LeaderboardEnv } from "@bouts/leaderboard";

/** The Hono context of an MCP request, as the leaderboard reads take it. */
export type McpContext = Context<LeaderboardEnv>;

/** The verified agent an MCP request acts as. */
export type McpAgent = Extract<Principal, { role: "agent" }>;

/** One request's context, agent, bindings and origin, as the tool groups take them. */
export interface McpRequestScope {
  c: McpContext;
  env: McpContext["env"];
  principal: McpAgent;
  origin: string;
}

/** The scope of one request of the verified agent `principal`. */
export function buildRequestScope(c: McpContext, principal: McpAgent): McpRequestScope {
  return { c, env: c.env, principal, origin: new URL(c.req.url).origin };
}
