/**
 * @module ingest/auth
 * Bearer-key authentication and role checks. Invariants: every /v1 route passes through
 * `authenticate`; an unknown, malformed or revoked key gets the same 401 after the same
 * amount of hashing work; operator routes answer 403 to an agent key.
 */
import { createMiddleware } from "hono/factory";
import { createDb, findApiKey, parseApiKey, verifySecret } from "@bouts/db";
import { fail } from "./errors.ts";
import type { IngestEnv, Principal } from "./types.ts";

// A hash no secret produces, so unknown key ids cost the same comparison as real ones.
const DUMMY_HASH = "0".repeat(64);

/** Resolves the caller's key into `c.var.principal`, or answers 401. */
export const authenticate = createMiddleware<IngestEnv>(async (c, next) => {
  const header = c.req.header("Authorization") ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
  if (!token)
    fail({ reason: "unauthenticated", detail: "Send an API key: Authorization: Bearer <key>." });
  const parsed = parseApiKey(token);
  const row = parsed ? await findApiKey(createDb(c.env.DB), parsed.id) : undefined;
  const ok = await verifySecret(parsed?.secret ?? token, row?.secretHash ?? DUMMY_HASH);
  if (!row || !ok || row.revokedAt !== null) {
    fail({ reason: "unauthenticated", detail: "The API key is not valid or was revoked." });
  }
  const principal = toPrincipal(row.id, row.role, row.agentId, row.operatorId);
  if (!principal) fail({ reason: "unauthenticated", detail: "The API key has no owner." });
  c.set("principal", principal);
  await next();
});

function toPrincipal(
  keyId: string,
  role: string,
  agentId: string | null,
  operatorId: string | null,
): Principal | null {
  if (role === "agent" && agentId) return { role: "agent", agentId, keyId };
  if (role === "operator" && operatorId) return { role: "operator", operatorId, keyId };
  return null;
}

/**
 * Rate-limits per key, after authentication (so nobody can spend another key's budget),
 * against API_RATE_LIMIT. The submit route checks SUBMIT_RATE_LIMIT itself instead, in
 * parallel with its first read and before it writes anything.
 */
export const limitRate = createMiddleware<IngestEnv>(async (c, next) => {
  if (c.req.method === "POST" && SUBMIT_ROUTE.test(c.req.path)) return next();
  await checkRateLimit(c.env.API_RATE_LIMIT, c.var.principal.keyId, "requests");
  await next();
});

const SUBMIT_ROUTE = /^\/v1\/challenges\/[^/]+\/submissions\/?$/;

/** Answers 429 when `limiter` refuses another call for this key. */
export async function checkRateLimit(
  limiter: RateLimit,
  keyId: string,
  what: "requests" | "submissions",
): Promise<void> {
  const { success } = await limiter.limit({ key: keyId });
  if (!success) {
    fail({ reason: "rate-limited", retryAfter: 60, detail: `Too many ${what} for this key.` });
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
