/**
 * @module auth/middleware
 * Per-route access, attached in each route's `middleware` (never app-wide): `agentOnly` and
 * `operatorOnly` (a verified key, its owner's rate limit, then its role: 401, 429, 403 in that
 * order), `optionalKey` (a public read, anonymous or with a verified key), `keyOrPublic` (a
 * keyed call when an Authorization header is present, else the public read the route passes
 * in) and `limitByIp` (the per-IP budget of public reads). Invariants: the rate limit is counted
 * after authentication, so nobody can spend another's budget; agent routes answer 403 to an
 * operator key and operator routes 403 to an agent key.
 */
import type { MiddlewareHandler } from "hono";
import type { ProblemStatus } from "@bouts/edge";
import { createMiddleware } from "hono/factory";
import { fail } from "./errors.ts";
import { resolveCaller, resolvePrincipal, type Caller, type Principal } from "./keys.ts";
import { checkIpRateLimit, checkRateLimit } from "./rate-limit.ts";

/** The bindings the auth layer reads. */
export type AuthBindings = { DB: D1Database; API_RATE_LIMIT: RateLimit };

/** The Hono environment of a route behind a required key (`c.var.principal`). */
export type PrincipalEnv = { Bindings: AuthBindings; Variables: { principal: Principal } };

/** The Hono environment of a route where the key is optional (`c.var.caller`). */
export type CallerEnv = { Bindings: AuthBindings; Variables: { caller: Caller } };

/** Resolves the caller's key into `c.var.principal`, or answers 401. */
export const authenticate = createMiddleware<PrincipalEnv>(async (c, next) => {
  c.set("principal", await resolvePrincipal(c.env.DB, c.req.header("Authorization")));
  await next();
});

/** Counts the call against its agent's or operator's API_RATE_LIMIT budget; 429 past it. */
export const limitRate = createMiddleware<PrincipalEnv>(async (c, next) => {
  await checkRateLimit(c.env.API_RATE_LIMIT, c.var.principal, "requests");
  await next();
});

/** Only agent keys pass; operator keys get 403 (operators do not compete). */
export const requireAgent = createMiddleware<PrincipalEnv>(async (c, next) => {
  if (c.var.principal.role !== "agent") {
    fail({ reason: "forbidden", detail: "This route needs an agent key." });
  }
  await next();
});

/** Only operator keys pass; agent keys get 403. */
export const requireOperator = createMiddleware<PrincipalEnv>(async (c, next) => {
  if (c.var.principal.role !== "operator") {
    fail({ reason: "forbidden", detail: "This route needs an operator key." });
  }
  await next();
});

/** An agent route: a verified key (401), its rate limit (429), an agent's key (403). */
export const agentOnly = createMiddleware<PrincipalEnv>(async (c, next) => {
  const principal = await resolvePrincipal(c.env.DB, c.req.header("Authorization"));
  c.set("principal", principal);
  await checkRateLimit(c.env.API_RATE_LIMIT, principal, "requests");
  agentIdOf(principal);
  await next();
});

/** An operator route: a verified key (401), its rate limit (429), an operator's key (403). */
export const operatorOnly = createMiddleware<PrincipalEnv>(async (c, next) => {
  const principal = await resolvePrincipal(c.env.DB, c.req.header("Authorization"));
  c.set("principal", principal);
  await checkRateLimit(c.env.API_RATE_LIMIT, principal, "requests");
  operatorIdOf(principal);
  await next();
});

/**
 * A public read whose answer depends on an optional key (`c.var.caller`): `publicRead` runs
 * first (CORS, the per-IP budget …), then no header, or an empty one, is anonymous and a
 * header that does not verify is 401, never a silent downgrade to the public view.
 */
export function optionalKey<E extends CallerEnv>(publicRead: MiddlewareHandler<E>) {
  return createMiddleware<E>((c, next) =>
    publicRead(c, async () => {
      const caller = await resolveCaller(c.env.DB, c.req.header("Authorization"));
      if (!caller.ok) fail(caller.error);
      c.set("caller", caller.value);
      await next();
    }),
  );
}

/**
 * A route that is a keyed API call when an `Authorization` header is present (verified, then
 * rate-limited per owner, as `authenticate` + `limitRate`) and a public read otherwise, run
 * through `publicRead` (CORS, the per-IP budget …). Either way `c.var.caller` says which. The
 * environment is the route's own, so its handler keeps its exact context type.
 */
export function keyOrPublic<E extends CallerEnv>(publicRead: MiddlewareHandler<E>) {
  return createMiddleware<E>(async (c, next) => {
    if (!c.req.raw.headers.has("Authorization")) {
      const anonymous: Caller = { role: "anonymous" };
      c.set("caller", anonymous);
      return publicRead(c, next);
    }
    const principal = await resolvePrincipal(c.env.DB, c.req.header("Authorization"));
    await checkRateLimit(c.env.API_RATE_LIMIT, principal, "requests");
    c.set("caller", principal);
    await next();
  });
}

/**
 * A public read: no key, counted per client IP (`cf-connecting-ip`) against API_RATE_LIMIT; a
 * CORS preflight is not counted. Built for the route's own environment.
 */
export function limitByIp<E extends { Bindings: AuthBindings }>() {
  return createMiddleware<E>(async (c, next) => {
    if (c.req.method === "OPTIONS") return next();
    await checkIpRateLimit(c.env.API_RATE_LIMIT, c.req.header("cf-connecting-ip"));
    await next();
  });
}

/** The calling agent's id; only valid behind `agentOnly` or `requireAgent`. */
export function agentIdOf(p: Principal): string {
  if (p.role !== "agent") fail({ reason: "forbidden", detail: "This route needs an agent key." });
  return p.agentId;
}

/** The calling operator's id; only valid behind `operatorOnly` or `requireOperator`. */
export function operatorIdOf(p: Principal): string {
  if (p.role !== "operator") {
    fail({ reason: "forbidden", detail: "This route needs an operator key." });
  }
  return p.operatorId;
}

/** The problem statuses each kind of access can answer by itself, for a route's `responses`. */
export const ACCESS_PROBLEMS = {
  public: [429],
  optionalKey: [401, 429],
  agent: [401, 403, 429],
  operator: [401, 403, 429],
} as const satisfies Record<string, readonly ProblemStatus[]>;
