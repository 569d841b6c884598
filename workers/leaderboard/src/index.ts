/**
 * @module leaderboard
 * The read side: the `ChallengeLeaderboard` Durable Object (the ranking authority), the public
 * read API of the boards (no key needed; rate-limited per client IP: boards, standings, the live
 * feed, breakdowns, the audit histories, the price table in force, the public challenge views)
 * and the HTML pages built on it (`pages/`, docs/pages.md; the owning operator's page of a
 * version's diff report among them). It serves no operator write: those are the ingest role's,
 * which reaches the object only through its RPC (docs/design.md, "A role owns a resource, not a
 * binding"). Invariants: browser consumers get CORS without credentials; the WebSocket route is
 * passed to the object untouched (no header rewriting on a 101); every failure is a problem
 * document (the pages: an HTML page with the same status).
 */
import { createRouter } from "@bouts/edge";
import { DEFAULT_CACHE_OPTIONS, type CacheOptions } from "./cache.ts";
import { createPageRoutes } from "./pages/routes.ts";
import { createPublicRead, type PublicReadAccess } from "./public-read.ts";
import { createBoardRoutes } from "./routes/challenges.ts";
import { createPricingRoutes } from "./routes/pricing.ts";
import { createHistoryRoutes } from "./routes/history.ts";
import { createBreakdownRoutes } from "./routes/submissions.ts";
import type { LeaderboardEnv } from "./types.ts";

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

// The public views of the challenge list and of one challenge, served by the platform's one
// operation for each.
export {
  listPublicChallengeViews,
  PUBLIC_CHALLENGE_CACHE_CONTROL,
  readPublicChallengeView,
} from "./public-challenges.ts";
export { createPublicRead, type PublicReadAccess } from "./public-read.ts";
export {
  ChallengeListQuerySchema,
  ChallengeParamSchema,
  PublicChallengeListSchema,
  PublicChallengeSchema,
} from "./schemas.ts";
export type { LeaderboardEnv } from "./types.ts";
// The board reads the MCP tools serve too (the same bodies as the JSON API).
export { readBreakdownView, readLeaderboard, readStanding } from "./board-views.ts";
export { readVersion, resolveChallenge } from "./reads.ts";
export {
  LeaderboardPageSchema,
  MaxCostUsdSchema,
  PublicBreakdownSchema,
  StandingSchema,
} from "./schemas.ts";

/** Options of the leaderboard routes: cache lifetimes (tests turn the version cache off). */
export interface LeaderboardRoutesOptions {
  cache?: Partial<CacheOptions>;
}

// The public reads a browser may preflight (the list and one challenge included: the
// platform serves their anonymous view with this role's access).
const PREFLIGHT_PATHS = [
  "/challenges",
  "/challenges/:id",
  "/challenges/:id/leaderboard",
  "/challenges/:id/agents/:agentId",
  "/submissions/:id/breakdown",
  "/challenges/:id/history",
  "/challenges/:id/leaderboard/cost",
  "/pricing",
];

/** The resolved cache options of a set of routes. */
export function resolveCacheOptions(options: LeaderboardRoutesOptions = {}): CacheOptions {
  return { ...DEFAULT_CACHE_OPTIONS, ...options.cache };
}

/**
 * The leaderboard role's routes, to mount at the root: the public API under /v1 (boards,
 * standings, the live feed, breakdowns, the audit histories, the price table in force, CORS
 * preflights) and the HTML pages. `access` is the public-read middleware to share with the
 * platform's challenge reads; by default one is built from `options`. Each route has its own
 * access: public-read.ts, with @bouts/auth's `optionalKey` for the breakdown and a key of
 * either role for a submission's history.
 */
export function createLeaderboardRoutes(
  options: LeaderboardRoutesOptions = {},
  access: PublicReadAccess = createPublicRead(resolveCacheOptions(options)),
) {
  const api = createRouter<LeaderboardEnv>()
    .route("/", createBoardRoutes(access))
    .route("/", createBreakdownRoutes(access))
    .route("/", createHistoryRoutes(access))
    .route("/", createPricingRoutes(access));
  for (const path of PREFLIGHT_PATHS) api.options(path, access.read, (c) => c.body(null, 204));
  return createRouter<LeaderboardEnv>()
    .route("/v1", api)
    .route("/", createPageRoutes(resolveCacheOptions(options)));
}
