/**
 * @module auth/rate-limit
 * Rate limits: keyed API calls are counted per agent or operator (all of its keys share one
 * budget, so minting more keys never buys more requests); public reads, which carry no key,
 * per client IP. Both namespaces live in the same limiter, told apart by their key prefix.
 */
import { fail } from "./errors.ts";
import type { Principal } from "./keys.ts";

/**
 * The rate-limit key of a caller: its agent or operator, never the API key, so that all the
 * keys of one agent share one budget. Prefixed, as the namespace also holds `ip:` keys.
 */
export function resolveRateLimitKey(p: Principal): string {
  return p.role === "agent" ? `agent:${p.agentId}` : `operator:${p.operatorId}`;
}

/** Answers 429 when `limiter` refuses another call for this caller's agent or operator. */
export async function checkRateLimit(
  limiter: RateLimit,
  principal: Principal,
  what: "requests" | "submissions",
): Promise<void> {
  const { success } = await limiter.limit({ key: resolveRateLimitKey(principal) });
  if (!success) {
    fail({
      reason: "rate-limited",
      retryAfter: 60,
      detail: `Too many ${what} for this ${principal.role}; all of its keys share one limit.`,
    });
  }
}

/** Answers 429 when `limiter` refuses another public read from this client IP. */
export async function checkIpRateLimit(limiter: RateLimit, ip: string | undefined): Promise<void> {
  const { success } = await limiter.limit({ key: `ip:${ip ?? "unknown"}` });
  if (!success) {
    fail({ reason: "rate-limited", retryAfter: 60, detail: "Too many requests; slow down." });
  }
}
