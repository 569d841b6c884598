/**
 * @module leaderboard/routes/challenges
 * Public board reads: a challenge's leaderboard, one agent's standing and the live WebSocket
 * feed (the list and one challenge are `public-challenges.ts`, served by the platform's one
 * operation for each). Invariants: no key is needed or read; drafts are invisible (404); board
 * reads are served from the versioned cache whenever the colo has the current version, so most
 * reads never reach the Durable Object.
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ACCESS_PROBLEMS } from "@bouts/auth";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { BOARD_CACHE_CONTROL, boardEtag, matchesIfNoneMatch, notModified } from "../cache.ts";
import { fail } from "../errors.ts";
import { checkPageCursor, readStanding } from "../board-views.ts";
import type { PublicReadAccess } from "../public-read.ts";
import {
  boardOf,
  DEFAULT_PAGE_LIMIT,
  readBoardPage,
  readCostPlot,
  readVersion,
  resolveChallenge,
} from "../reads.ts";
import {
  AgentParamSchema,
  ChallengeParamSchema,
  CostPlotSchema,
  LeaderboardPageSchema,
  PageQuerySchema,
  StandingSchema,
} from "../schemas.ts";
import type { LeaderboardEnv } from "../types.ts";

const tags = ["leaderboard"];
const PUBLIC = ACCESS_PROBLEMS.public;

/** The board's current version and ETag, and the 304 to answer when the client already has it. */
async function checkBoardVersion(c: Context<LeaderboardEnv>, challengeId: string) {
  const version = await readVersion(c, challengeId);
  const etag = boardEtag(version);
  const fresh = matchesIfNoneMatch(c.req.header("If-None-Match"), etag);
  return { version, etag, unchanged: fresh ? notModified(etag) : null };
}

/** Marks a board answer with its version's ETag and the board's cache lifetime. */
function markBoardAnswer(c: Context<LeaderboardEnv>, etag: string): void {
  c.header("ETag", etag);
  c.header("Cache-Control", BOARD_CACHE_CONTROL);
}

/** The board routes, to mount at /v1, behind the public-read access of `access`. */
export function createBoardRoutes(access: PublicReadAccess) {
  const challengeRoutes = createRouter<LeaderboardEnv>();

  challengeRoutes.openapi(
    createRoute({
      method: "get",
      path: "/challenges/{id}/leaderboard",
      tags,
      summary: "A page of the leaderboard, best first",
      description:
        "Keyset pages: pass the previous page's `next` as `cursor`. Entries that do not move " +
        "while you page are shown exactly once. Weak ETag = board version; send If-None-Match. " +
        "Every entry carries what its ranking submission cost; `sort=cost` and `maxCostUsd` " +
        "order and filter by it without changing the official rank.",
      security: SECURITY.public,
      middleware: [access.read] as const,
      request: { params: ChallengeParamSchema, query: PageQuerySchema },
      responses: {
        200: json(LeaderboardPageSchema, "The page"),
        304: { description: "Not modified since the ETag you sent" },
        ...problems(
          ...PUBLIC,
          [400, "A bad id, limit, cursor, sort or maxCostUsd (the problem names it)"],
          404,
        ),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
      // A garbage cursor is refused here, before any cache or Durable Object work.
      const sort = query.sort ?? "rank";
      const cursor = checkPageCursor(query.cursor, sort);
      const ch = await resolveChallenge(c, c.req.valid("param").id);
      const { version, etag, unchanged } = await checkBoardVersion(c, ch.id);
      if (unchanged) return unchanged;
      const body = await readBoardPage(c, ch.id, version, limit, cursor, {
        sort,
        maxCostUsd: query.maxCostUsd ?? null,
      });
      markBoardAnswer(c, etag);
      return c.json(body, 200);
    },
  );

  challengeRoutes.openapi(
    createRoute({
      method: "get",
      path: "/challenges/{id}/leaderboard/cost",
      tags,
      summary: "Score against cost: the board's priced entries and its Pareto frontier",
      description:
        "The best-ranked entries whose cost is known and every entry on the Pareto frontier " +
        "(no other entry costs at most as much and scores at least as high, one strictly), " +
        "each list at most 500, priced by the price table in force. The challenge page draws it.",
      security: SECURITY.public,
      middleware: [access.read] as const,
      request: { params: ChallengeParamSchema },
      responses: {
        200: json(CostPlotSchema, "The plot's points"),
        304: { description: "Not modified since the ETag you sent" },
        ...problems(...PUBLIC, 400, 404, 503),
      },
    }),
    async (c) => {
      const ch = await resolveChallenge(c, c.req.valid("param").id);
      const { version, etag, unchanged } = await checkBoardVersion(c, ch.id);
      if (unchanged) return unchanged;
      const body = await readCostPlot(c, ch.id, version);
      markBoardAnswer(c, etag);
      return c.json(body, 200);
    },
  );

  challengeRoutes.openapi(
    createRoute({
      method: "get",
      path: "/challenges/{id}/agents/{agentId}",
      tags,
      summary: "One agent's standing: rank, score, iterations, time, trajectory and its class",
      security: SECURITY.public,
      middleware: [access.read] as const,
      request: { params: AgentParamSchema },
      responses: {
        200: json(StandingSchema, "The standing"),
        304: { description: "Not modified since the ETag you sent" },
        ...problems(...PUBLIC, 400, 404),
      },
    }),
    async (c) => {
      const { id, agentId } = c.req.valid("param");
      const ch = await resolveChallenge(c, id);
      const { version, etag, unchanged } = await checkBoardVersion(c, ch.id);
      if (unchanged) return unchanged;
      const body = await readStanding(c, ch.id, version, agentId);
      markBoardAnswer(c, etag);
      return c.json(body, 200);
    },
  );

  challengeRoutes.openapi(
    createRoute({
      method: "get",
      path: "/challenges/{id}/leaderboard/ws",
      tags,
      summary: "Live rank changes over a WebSocket",
      description:
        'Upgrade to a WebSocket; every board change sends `{ "type": "rank-changed", "version", ' +
        '"changes": [{ "agentId", "rank", "previousRank", "score" }] }`. Send "ping" for "pong".',
      security: SECURITY.public,
      middleware: [access.upgrade] as const,
      request: { params: ChallengeParamSchema },
      responses: {
        101: { description: "Switching protocols" },
        ...problems(...PUBLIC, 400, 404, 426),
      },
    }),
    async (c) => {
      if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
        fail({ reason: "upgrade-required" });
      }
      const ch = await resolveChallenge(c, c.req.valid("param").id);
      const forwarded = new Request("https://leaderboard.internal/ws", c.req.raw);
      return boardOf(c, ch.id).fetch(forwarded);
    },
  );

  return challengeRoutes;
}
