/**
 * @module leaderboard/public-read
 * The access of the public read API, attached per route: no key, the per-IP budget
 * (`limitByIp` of @bouts/auth), the cache options in `c.var.cache`, and CORS for browser
 * consumers (no credentials) on every read but the WebSocket upgrade, whose 101 must pass
 * through untouched. Invariant: a public read never looks at a key unless its route says so
 * (`optionalKey`).
 */
import { limitByIp } from "@bouts/auth";
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { CacheOptions } from "./cache.ts";
import type { Caller } from "@bouts/auth";
import type { LeaderboardEnv } from "./types.ts";

const ANONYMOUS: Caller = { role: "anonymous" };

const corsPublic = cors({
  origin: "*",
  allowMethods: ["GET", "HEAD", "OPTIONS"],
  allowHeaders: ["Authorization", "If-None-Match"],
  exposeHeaders: ["ETag", "Retry-After"],
  maxAge: 86400,
  credentials: false,
});

/** The middleware of public reads, for one set of cache options. */
export interface PublicReadAccess {
  /**
   * CORS, then the per-IP budget, then the cache options and an anonymous caller (a CORS
   * preflight stops at CORS).
   */
  read: MiddlewareHandler<LeaderboardEnv>;
  /** The per-IP budget and the cache options, without CORS (the WebSocket upgrade). */
  upgrade: MiddlewareHandler<LeaderboardEnv>;
}

/** Builds the public-read middleware with the given cache options. */
export function createPublicRead(cache: CacheOptions): PublicReadAccess {
  const ipBudget = limitByIp<LeaderboardEnv>();
  const upgrade = createMiddleware<LeaderboardEnv>((c, next) =>
    ipBudget(c, async () => {
      c.set("cache", cache);
      c.set("caller", ANONYMOUS);
      await next();
    }),
  );
  const read = createMiddleware<LeaderboardEnv>((c, next) =>
    corsPublic(c, async () => {
      await upgrade(c, next);
    }),
  );
  return { read, upgrade };
}
