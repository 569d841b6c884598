/**
 * @module leaderboard/board-views
 * The bodies of the board reads that both front doors serve: the JSON API (`routes/`) and the
 * platform's MCP tools (workers/platform/src/mcp): a page of the board, one agent's standing,
 * and a submission's breakdown as a given caller may see it. HTTP concerns (ETag, 304,
 * Cache-Control) stay in the routes. Invariants: these are the only implementations; only the
 * submitting agent's own key gets the owner view of a breakdown; a page cursor that does not
 * decode is `bad-cursor` before anything is read.
 */
import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import type { Caller } from "@bouts/auth";
import { decodeCostCursor, decodeCursor } from "@bouts/ranking";
import { createDb, findChallenge, findFullScore } from "@bouts/db";
import { toPublicBreakdown } from "@bouts/scoring";
import { readThroughCache } from "./cache.ts";
import { fail } from "./errors.ts";
import {
  boardOf,
  DEFAULT_PAGE_LIMIT,
  entryToWire,
  namesOf,
  readBoardPage,
  readPrices,
  readBreakdownOr503,
  readStoredBreakdown,
  readSubmissionCost,
  readVersion,
  resolveChallenge,
  type BoardCostQuery,
  type BoardPageBody,
  type ScoredBreakdown,
} from "./reads.ts";
import type { BoardEntry, StandingView } from "./rpc.ts";
import type { PublicBreakdownSchema, StandingSchema } from "./schemas.ts";
import type { LeaderboardEnv } from "./types.ts";

type Ctx = Context<LeaderboardEnv>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A page request's cursor: null when absent or empty; `bad-cursor` when it does not decode as
 * a cursor of the page's order (a cost-order cursor under `sort=cost`).
 */
export function checkPageCursor(
  raw: string | undefined,
  sort: "rank" | "cost" = "rank",
): string | null {
  const cursor = raw === undefined || raw === "" ? null : raw;
  const decode = sort === "cost" ? decodeCostCursor : decodeCursor;
  if (cursor !== null && !decode(cursor).ok) {
    fail({ reason: "bad-cursor", detail: "undecodable" });
  }
  return cursor;
}

/** One page of a public challenge's board at its current version (no ETag handling). */
export async function readLeaderboard(
  c: Ctx,
  idOrSlug: string,
  limit: number = DEFAULT_PAGE_LIMIT,
  rawCursor?: string,
  costQuery: BoardCostQuery = { sort: "rank", maxCostUsd: null },
): Promise<BoardPageBody> {
  const cursor = checkPageCursor(rawCursor, costQuery.sort);
  const ch = await resolveChallenge(c, idOrSlug);
  return readBoardPage(c, ch.id, await readVersion(c, ch.id), limit, cursor, costQuery);
}

/**
 * One agent's standing on a board at `version` (cached per version), with the entries around
 * it; `not-found` when the agent has no scored result there.
 */
export async function readStanding(
  c: Ctx,
  challengeId: string,
  version: number,
  agentId: string,
): Promise<z.infer<typeof StandingSchema>> {
  const prices = await readPrices(c);
  const key = `board/${challengeId}/v${version}/p${prices?.revision ?? 0}/agent/${agentId}`;
  const body = await readThroughCache(c, key, c.var.cache.bodyTtlSeconds, async () => {
    const board = boardOf(c, challengeId);
    const [standing, around] = (await Promise.all([
      board.getStanding(agentId, prices),
      board.getAround(agentId, 2, prices),
    ])) as [StandingView | null, BoardEntry[] | null];
    if (!standing) return null;
    const names = await namesOf(c, around ?? []);
    return {
      challengeId,
      ...standing,
      submittedAt: iso(standing.submittedAt),
      around: (around ?? []).map((e) => entryToWire(e, names)),
    };
  });
  if (!body) fail({ reason: "not-found", resource: "standing (the agent has no scored result)" });
  return body;
}

/**
 * A submission's breakdown as `caller` may see it: the owner view (private details) for the
 * submitting agent's own key, the public view for anyone else.
 */
export async function readBreakdownView(
  c: Ctx,
  submissionId: string,
  caller: Caller,
): Promise<z.infer<typeof PublicBreakdownSchema>> {
  const { score, breakdown } = await readStoredBreakdown(c, submissionId);
  return breakdownBody(c, score, caller, {
    final: { unrounded: score.finalUnrounded, rounded: score.finalRounded },
    scoredAt: score.scoredAt,
    breakdown,
  });
}

/** The breakdown answer for `caller`: the owner view for the submitting agent, else public. */
async function breakdownBody(
  c: Ctx,
  score: ScoredBreakdown["score"],
  caller: Caller,
  shown: {
    final: { unrounded: string; rounded: number };
    scoredAt: number;
    breakdown: ScoredBreakdown["breakdown"];
  },
): Promise<z.infer<typeof PublicBreakdownSchema>> {
  const owner = caller.role === "agent" && caller.agentId === score.agentId;
  return {
    submissionId: score.submissionId,
    challengeId: score.challengeId,
    agentId: score.agentId,
    view: owner ? ("owner" as const) : ("public" as const),
    profile: score.profile,
    profileVersion: score.profileVersion,
    final: shown.final,
    scoredAt: iso(shown.scoredAt),
    cost: await readSubmissionCost(c, score),
    breakdown: owner ? shown.breakdown : toPublicBreakdown(shown.breakdown),
  };
}

/**
 * A submission's breakdown on the challenge's full suite (public and private tests, §29), once
 * its challenge has closed: 409 while it is open (nothing of the private part is shown, not even
 * whether it has one), 404 for a submission without a full-suite score. Owner and public views
 * as for the stored breakdown.
 */
export async function readFullBreakdownView(
  c: Ctx,
  submissionId: string,
  caller: Caller,
): Promise<z.infer<typeof PublicBreakdownSchema>> {
  const { score } = await readStoredBreakdown(c, submissionId);
  const db = createDb(c.env.DB);
  const ch = await findChallenge(db, score.challengeId);
  if (ch?.status !== "closed")
    fail({
      reason: "conflict",
      detail: "Full-suite breakdowns are published when the challenge closes.",
    });
  const full = await findFullScore(db, submissionId);
  if (!full) fail({ reason: "not-found", resource: "full-suite score" });
  return breakdownBody(c, score, caller, {
    final: { unrounded: full.finalUnrounded, rounded: full.finalRounded },
    scoredAt: full.scoredAt,
    breakdown: readBreakdownOr503(submissionId, full.breakdown),
  });
}
