/**
 * @module leaderboard/routes/challenges
 * Public challenge reads: the list, one challenge, its leaderboard, one agent's standing and
 * the live WebSocket feed. Invariants: drafts are invisible (404); no view carries a bundle,
 * a manifest test or a QA report; board reads are served from the versioned cache whenever
 * the colo has the current version, so most reads never reach the Durable Object.
 */
import { createRoute } from "@hono/zod-openapi";
import { createDb } from "@bouts/db";
import { decodeCursor } from "@bouts/ranking";
import {
  BOARD_CACHE_CONTROL,
  CHALLENGE_CACHE_CONTROL,
  boardEtag,
  matchesIfNoneMatch,
  notModified,
  readThroughCache,
} from "../cache.ts";
import { fail } from "../errors.ts";
import { createRouter, json, problems } from "../openapi.ts";
import {
  boardOf,
  clampLimit,
  entryToWire,
  readBoardPage,
  readVersion,
  resolveChallenge,
} from "../reads.ts";
import type { BoardEntry, StandingView } from "../rpc.ts";
import {
  AgentParamSchema,
  ChallengeListQuerySchema,
  ChallengeParamSchema,
  LeaderboardPageSchema,
  PageQuerySchema,
  PublicChallengeListSchema,
  PublicChallengeSchema,
  StandingSchema,
} from "../schemas.ts";
import { listPublicChallenges, type PublicChallenge } from "../store.ts";

export const challengeRoutes = createRouter();

const tags = ["leaderboard"];

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

function challengeToWire(ch: PublicChallenge) {
  const base = `/v1/challenges/${ch.id}/leaderboard`;
  return {
    ...ch,
    publishedAt: isoOrNull(ch.publishedAt),
    closedAt: isoOrNull(ch.closedAt),
    links: { leaderboard: base, websocket: `${base}/ws` },
  };
}

challengeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges",
    tags,
    summary: "List public challenges (published by default, or closed)",
    request: { query: ChallengeListQuerySchema },
    responses: { 200: json(PublicChallengeListSchema, "The challenges"), ...problems() },
  }),
  async (c) => {
    const status = c.req.valid("query").status ?? "published";
    const rows = await listPublicChallenges(createDb(c.env.DB), status);
    c.header("Cache-Control", CHALLENGE_CACHE_CONTROL);
    return c.json({ challenges: rows.map(challengeToWire) }, 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}",
    tags,
    summary: "Read a public challenge by id or slug",
    request: { params: ChallengeParamSchema },
    responses: { 200: json(PublicChallengeSchema, "The challenge"), ...problems(404) },
  }),
  async (c) => {
    const ch = await resolveChallenge(c, c.req.valid("param").id);
    c.header("Cache-Control", CHALLENGE_CACHE_CONTROL);
    return c.json(challengeToWire(ch), 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/leaderboard",
    tags,
    summary: "A page of the leaderboard, best first",
    description:
      "Keyset pages: pass the previous page's `next` as `cursor`. Entries that do not move " +
      "while you page are shown exactly once. Weak ETag = board version; send If-None-Match.",
    request: { params: ChallengeParamSchema, query: PageQuerySchema },
    responses: {
      200: json(LeaderboardPageSchema, "The page"),
      304: { description: "Not modified since the ETag you sent" },
      ...problems(404),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const limit = clampLimit(query.limit);
    const cursor = query.cursor === undefined || query.cursor === "" ? null : query.cursor;
    // A garbage cursor is refused here, before any cache or Durable Object work.
    if (cursor !== null && !decodeCursor(cursor).ok) {
      fail({ reason: "bad-cursor", detail: "undecodable" });
    }
    const ch = await resolveChallenge(c, c.req.valid("param").id);
    const version = await readVersion(c, ch.id);
    const etag = boardEtag(version);
    if (matchesIfNoneMatch(c.req.header("If-None-Match"), etag)) return notModified(etag);
    const body = await readBoardPage(c, ch.id, version, limit, cursor);
    c.header("ETag", etag);
    c.header("Cache-Control", BOARD_CACHE_CONTROL);
    return c.json(body, 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/agents/{agentId}",
    tags,
    summary: "One agent's standing: rank, score, iterations, time, trajectory and its class",
    request: { params: AgentParamSchema },
    responses: {
      200: json(StandingSchema, "The standing"),
      304: { description: "Not modified since the ETag you sent" },
      ...problems(404),
    },
  }),
  async (c) => {
    const { id, agentId } = c.req.valid("param");
    const ch = await resolveChallenge(c, id);
    const version = await readVersion(c, ch.id);
    const etag = boardEtag(version);
    if (matchesIfNoneMatch(c.req.header("If-None-Match"), etag)) return notModified(etag);
    const key = `board/${ch.id}/v${version}/agent/${agentId}`;
    const body = await readThroughCache(c, key, c.var.cache.bodyTtlSeconds, async () => {
      const board = boardOf(c, ch.id);
      const [standing, around] = (await Promise.all([
        board.getStanding(agentId),
        board.getAround(agentId, 2),
      ])) as [StandingView | null, BoardEntry[] | null];
      if (!standing) return null;
      return {
        challengeId: ch.id,
        ...standing,
        submittedAt: iso(standing.submittedAt),
        around: (around ?? []).map(entryToWire),
      };
    });
    if (!body) fail({ reason: "not-found", resource: "standing (the agent has no scored result)" });
    c.header("ETag", etag);
    c.header("Cache-Control", BOARD_CACHE_CONTROL);
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
    request: { params: ChallengeParamSchema },
    responses: { 101: { description: "Switching protocols" }, ...problems(404, 426) },
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
