/**
 * @module ingest/auth
 * Bearer-key authentication and role checks. Invariants: every /v1 route passes through
 * `authenticate` (the submit route through the same `readBearer` + `verifyPrincipal`, in its
 * own first read); an unknown, malformed or revoked key gets the same 401 after the same
 * amount of hashing work; operator routes answer 403 to an agent key; rate limits are keyed
 * by the key's owner (agent or operator), so minting more keys never buys more requests.
 */
import { createMiddleware } from "hono/factory";
import { createDb, findApiKey, parseApiKey, verifyApiKey, type KeyCredentials } from "@bouts/db";
import { fail } from "./errors.ts";
import type { IngestEnv, Principal } from "./types.ts";

/** The presented bearer token, and its key id and secret when it is shaped like a key. */
export type Bearer = { token: string; key: { id: string; secret: string } | null };

/** Reads the bearer token of an `Authorization` header; 401 when there is none. */
export function readBearer(header: string | undefined): Bearer {
  const h = header ?? "";
  const token = h.startsWith("Bearer ") ? h.slice(7).trim() : "";
  if (!token)
    fail({ reason: "unauthenticated", detail: "Send an API key: Authorization: Bearer <key>." });
  return { token, key: parseApiKey(token) };
}

/**
 * The principal of a presented key, given the row found for its id (undefined when there is
 * none); 401 unless the secret matches a live key. Every path hashes and compares once.
 */
export async function verifyPrincipal(
  bearer: Bearer,
  row: KeyCredentials | undefined,
): Promise<Principal> {
  const owner = await verifyApiKey(bearer.token, row, bearer.key);
  if (!owner)
    fail({ reason: "unauthenticated", detail: "The API key is not valid or was revoked." });
  return owner;
}

/**
 * Resolves the caller's key into `c.var.principal`, or answers 401. The submit route is the
 * one exception: it checks the key itself, in the same query that reads what the submit needs
 * (`authenticateSubmitter` in routes/submissions.ts), before anything else runs.
 */
export const authenticate = createMiddleware<IngestEnv>(async (c, next) => {
  if (isSubmitRequest(c.req.method, c.req.path)) return next();
  const bearer = readBearer(c.req.header("Authorization"));
  const row = bearer.key ? await findApiKey(createDb(c.env.DB), bearer.key.id) : undefined;
  c.set("principal", await verifyPrincipal(bearer, row));
  await next();
});

/**
 * Rate-limits per agent or operator, after authentication (so nobody can spend another's
 * budget), against API_RATE_LIMIT. The submit route checks SUBMIT_RATE_LIMIT itself instead,
 * after its first read and before it reads the body or writes anything.
 */
export const limitRate = createMiddleware<IngestEnv>(async (c, next) => {
  if (isSubmitRequest(c.req.method, c.req.path)) return next();
  await checkRateLimit(c.env.API_RATE_LIMIT, c.var.principal, "requests");
  await next();
});

// Exactly the paths the submit route matches (Hono is strict about a trailing slash), so any
// other path still passes through `authenticate`.
const SUBMIT_ROUTE = /^\/v1\/challenges\/[^/]+\/submissions$/;

/** Whether a request is a submit (POST /v1/challenges/{id}/submissions). */
export function isSubmitRequest(method: string, path: string): boolean {
  return method === "POST" && SUBMIT_ROUTE.test(path);
}

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

/** Only operator keys pass; agent keys get 403. */
export const requireOperator = createMiddleware<IngestEnv>(async (c, next) => {
  if (c.var.principal.role !== "operator") {
    fail({ reason: "forbidden", detail: "This route needs an operator key." });
  }
  await next();
});

/** Only agent keys pass; operator keys get 403 (operators do not compete). */
export const requireAgent = createMiddleware<IngestEnv>(async (c, next) => {
  if (c.var.principal.role !== "agent") {
    fail({ reason: "forbidden", detail: "This route needs an agent key." });
  }
  await next();
});

/** The calling agent's id; only valid behind `requireAgent`. */
export function agentIdOf(p: Principal): string {
  if (p.role !== "agent") fail({ reason: "forbidden", detail: "This route needs an agent key." });
  return p.agentId;
}

/** The calling operator's id; only valid behind `requireOperator`. */
export function operatorIdOf(p: Principal): string {
  if (p.role !== "operator") {
    fail({ reason: "forbidden", detail: "This route needs an operator key." });
  }
  return p.operatorId;
}
