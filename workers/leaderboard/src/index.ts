/**
 * @module leaderboard
 * The public read API of the leaderboards (no key needed; rate-limited per client IP), the
 * public HTML pages built on it (`pages/`, docs/pages.md) and the `ChallengeLeaderboard`
 * Durable Object. Invariants: one `onError` renders every failure as
 * problem+json and an unexpected error as a logged, generic 500; browser consumers get CORS
 * without credentials; the WebSocket route is passed to the object untouched (no header
 * rewriting on a 101).
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { buildProblem } from "@bouts/contracts";
import { DEFAULT_CACHE_OPTIONS, type CacheOptions } from "./cache.ts";
import { errorResponse, fail, LeaderboardHttpError, problemResponse } from "./errors.ts";
import { createPageRoutes } from "./pages/routes.ts";
import { challengeRoutes } from "./routes/challenges.ts";
import { operatorRoutes } from "./routes/operators.ts";
import { submissionRoutes } from "./routes/submissions.ts";
import type { LeaderboardBindings, LeaderboardEnv } from "./types.ts";

export { ChallengeLeaderboard, MAX_OVERTAKEN } from "./leaderboard-object.ts";
export type {
  BoardEntry,
  BoardPage,
  BoardResult,
  BoardWriteError,
  Overtaken,
  RankChangedMessage,
  RebuildInput,
  RebuildRow,
  RecordResultInput,
  RecordResultOutcome,
  StandingView,
} from "./rpc.ts";
export type { LeaderboardBindings } from "./types.ts";
export { DEFAULT_CACHE_OPTIONS, type CacheOptions } from "./cache.ts";
export { isPageRequest, PAGE_CSP } from "./pages/routes.ts";

const WS_ROUTE = /^\/v1\/challenges\/[^/]+\/leaderboard\/ws\/?$/;

const corsPublic = cors({
  origin: "*",
  allowMethods: ["GET", "HEAD", "OPTIONS"],
  allowHeaders: ["Authorization", "If-None-Match"],
  exposeHeaders: ["ETag", "Retry-After"],
  maxAge: 86400,
  credentials: false,
});

/** CORS on every public route but the WebSocket upgrade (a 101 must pass through as is). */
const withCors = createMiddleware<LeaderboardEnv>(async (c, next) => {
  if (WS_ROUTE.test(c.req.path)) return next();
  return corsPublic(c, next);
});

/** Public reads have no key: the budget is per client IP (`cf-connecting-ip`). */
const limitByIp = createMiddleware<LeaderboardEnv>(async (c, next) => {
  if (c.req.method === "OPTIONS") return next();
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const { success } = await c.env.API_RATE_LIMIT.limit({ key: `ip:${ip}` });
  if (!success) fail({ reason: "rate-limited", retryAfter: 60 });
  await next();
});

/** Options of the app: cache lifetimes (tests turn the version cache off). */
export interface LeaderboardAppOptions {
  cache?: Partial<CacheOptions>;
}

/** Builds the public leaderboard app (routes under `/v1`, mergeable into one OpenAPI doc). */
export function createLeaderboardApp(options: LeaderboardAppOptions = {}) {
  const cache: CacheOptions = { ...DEFAULT_CACHE_OPTIONS, ...options.cache };
  const app = new OpenAPIHono<LeaderboardEnv>();

  app.use("/v1/*", withCors, limitByIp, async (c, next) => {
    c.set("cache", cache);
    await next();
  });
  app.route("/v1", challengeRoutes);
  app.route("/v1", submissionRoutes);
  app.route("/v1", operatorRoutes);
  app.route("/", createPageRoutes(cache));

  app.notFound(() =>
    problemResponse(buildProblem(404, "not-found", "Not found", "No such route.")),
  );
  app.onError((err) => {
    if (err instanceof LeaderboardHttpError) return errorResponse(err.error);
    if (err instanceof HTTPException) {
      const detail = err.message || "The request could not be processed.";
      return problemResponse(buildProblem(err.status, "http", "Request refused", detail));
    }
    console.error("unhandled error", err);
    return problemResponse(
      buildProblem(500, "internal", "Internal error", "Something went wrong on our side."),
    );
  });
  return app;
}

/** The public leaderboard app, as the platform Worker mounts it. */
export const leaderboardApp = createLeaderboardApp();

/** Whether the platform should route `request` to the leaderboard app (see docs/leaderboard.md). */
export function isLeaderboardRequest(request: Request): boolean {
  const { pathname } = new URL(request.url);
  if (/^\/v1\/challenges\/[^/]+\/leaderboard\/rebuild\/?$/.test(pathname)) {
    return request.method === "POST";
  }
  if (request.method !== "GET" && request.method !== "HEAD" && request.method !== "OPTIONS") {
    return false;
  }
  if (/^\/v1\/submissions\/[^/]+\/breakdown\/?$/.test(pathname)) return true;
  if (/^\/v1\/challenges\/[^/]+\/(leaderboard(\/ws)?|agents\/[^/]+)\/?$/.test(pathname)) {
    return true;
  }
  // The list and one challenge are ingest routes too (with a key, operators see drafts):
  // anonymous reads come here, keyed reads stay with ingest.
  if (/^\/v1\/challenges(\/[^/]+)?\/?$/.test(pathname)) {
    return !request.headers.has("Authorization");
  }
  return false;
}

export default {
  fetch: (request, env, ctx) => leaderboardApp.fetch(request, env, ctx),
} satisfies ExportedHandler<LeaderboardBindings>;
