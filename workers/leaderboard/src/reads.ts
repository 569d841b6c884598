/**
 * @module leaderboard/reads
 * The read paths shared by the JSON API (`routes/`) and the HTML pages (`pages/`): the
 * challenge lookup, the board version, a board page and a stored breakdown, each through the
 * same colo cache keys (docs/leaderboard.md "Caching"). Invariants: a page and the API read
 * the same cached bodies, so the pages add no Durable Object or D1 load of their own beyond
 * what they show in addition (names, trajectories); drafts are never returned.
 */
import type { Context } from "hono";
import {
  parseStoredBreakdown,
  parseJson,
  RunUsageSchema,
  type BreakdownWire,
  type PriceTableWire,
} from "@bouts/contracts";
import { compilePrices, computeCost, type CostBreakdown } from "@bouts/ranking";
import { createDb } from "@bouts/db";
import { readThroughCache } from "./cache.ts";
import { findAgentNames } from "./store.ts";
import { fail } from "./errors.ts";
import type {
  BandCountsView,
  BaselineLine,
  BoardEntry,
  BoardPage,
  BoardResult,
  CostPlot,
  PageError,
} from "./rpc.ts";
import {
  findPrices,
  findPublicChallenge,
  findStoredScore,
  type PublicChallenge,
  type StoredScore,
} from "./store.ts";
import type { LeaderboardEnv } from "./types.ts";

type Ctx = Context<LeaderboardEnv>;

/** Page size when `limit` is absent. */
export const DEFAULT_PAGE_LIMIT = 50;

/** The DO stub of a challenge's board: one object per challenge, named by its id. */
export function boardOf(c: Ctx, challengeId: string) {
  return c.env.LEADERBOARD.getByName(challengeId);
}

/** A published or closed challenge by id or slug (cached); a 404 otherwise. */
export async function resolveChallenge(c: Ctx, idOrSlug: string): Promise<PublicChallenge> {
  const ch = await readThroughCache(
    c,
    `challenge/${encodeURIComponent(idOrSlug)}`,
    c.var.cache.challengeTtlSeconds,
    () => findPublicChallenge(createDb(c.env.DB), idOrSlug),
  );
  if (!ch) fail({ reason: "not-found", resource: "challenge" });
  return ch;
}

/** The board version of a challenge, as this colo last read it (cached for seconds). */
export async function readVersion(c: Ctx, challengeId: string): Promise<number> {
  const version = await readThroughCache(
    c,
    `version/${challengeId}`,
    c.var.cache.versionTtlSeconds,
    () => boardOf(c, challengeId).getVersion(),
  );
  return version ?? 0;
}

/**
 * The price table in force, as this colo last read it (cached like the board version, so a
 * new revision shows within seconds); null when none was ever set.
 */
export async function readPrices(c: Ctx): Promise<PriceTableWire | null> {
  return (
    (await readThroughCache(c, "prices/current", c.var.cache.versionTtlSeconds, () =>
      findPrices(c.env.DB),
    )) ?? null
  );
}

/** How a board page is ordered and filtered by cost (docs/leaderboard.md, "Cost"). */
export interface BoardCostQuery {
  sort: "rank" | "cost";
  /** Decimal USD: only entries proven to cost at most this. */
  maxCostUsd: string | null;
}

/** Clamps `limit` to 1..100; absent → `fallback`; not an integer → 400. */
export function clampLimit(raw: string | undefined, fallback = DEFAULT_PAGE_LIMIT): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d{1,12}$/.test(raw)) {
    fail({
      reason: "invalid",
      problem: {
        type: "urn:bouts:problem:validation",
        title: "Invalid request",
        status: 400,
        detail: "Invalid query: limit: must be an integer (it is clamped to 1..100)",
        errors: [{ path: "limit", message: "must be an integer" }],
      },
    });
  }
  return Math.min(100, Math.max(1, Number(raw)));
}

/** A board row as the API serves it: `submittedAt` as ISO 8601. */
export type BoardEntryWire = Omit<BoardEntry, "submittedAt"> & {
  submittedAt: string;
  agentName: string | null;
};

/** A board page as the API serves it (and as the colo cache holds it). */
export interface BoardPageBody {
  challengeId: string;
  version: number;
  total: number;
  entries: BoardEntryWire[];
  next: string | null;
  bands: Omit<BandCountsView, "total" | "version">;
  /** Reference lines (no rank): the challenge's scored baselines. */
  baselines: BaselineLine[];
  /** The order and cost filter of this page, and the price table its costs use. */
  sort: "rank" | "cost";
  maxCostUsd: string | null;
  prices: { revision: number; asOf: string } | null;
}

/** A board row on the wire. */
export function entryToWire(e: BoardEntry, names: ReadonlyMap<string, string>): BoardEntryWire {
  return {
    ...e,
    agentName: names.get(e.agentId) ?? null,
    submittedAt: new Date(e.submittedAt).toISOString(),
  };
}

/** The display names of `entries`' agents (one D1 query; a page holds at most 100). */
export function namesOf(c: Ctx, entries: readonly BoardEntry[]): Promise<Map<string, string>> {
  return entries.length === 0
    ? Promise.resolve(new Map<string, string>())
    : findAgentNames(
        c.env.DB,
        entries.map((e) => e.agentId),
      );
}

/**
 * One page of the board at `version`, from the colo cache (key
 * `board/<id>/v<version>/page/<limit>/<cursor>`) or the object; `bad-cursor` when the object
 * refuses the cursor.
 */
export async function readBoardPage(
  c: Ctx,
  challengeId: string,
  version: number,
  limit: number,
  cursor: string | null,
  costQuery: BoardCostQuery = { sort: "rank", maxCostUsd: null },
): Promise<BoardPageBody> {
  const prices = await readPrices(c);
  const { sort, maxCostUsd } = costQuery;
  const key =
    `board/${challengeId}/v${version}/p${prices?.revision ?? 0}/${sort}/` +
    `${maxCostUsd ?? ""}/page/${limit}/${cursor ?? ""}`;
  const body = await readThroughCache(c, key, c.var.cache.bodyTtlSeconds, async () => {
    const board = boardOf(c, challengeId);
    const [page, bands, baselines] = (await Promise.all([
      board.getPage({ limit, cursor, sort, maxCostUsd, prices }),
      board.getBandCounts(),
      board.getBaselines(),
    ])) as [BoardResult<BoardPage, PageError>, BandCountsView, BaselineLine[]];
    if (!page.ok) return { badCursor: true as const };
    const names = await namesOf(c, page.value.entries);
    const { total: _total, version: _version, ...counts } = bands;
    return {
      challengeId,
      version: page.value.version,
      total: page.value.total,
      entries: page.value.entries.map((e) => entryToWire(e, names)),
      next: page.value.next,
      bands: counts,
      // Reference lines, not entries: no rank, placed after `afterRank` agents.
      baselines,
      sort,
      maxCostUsd,
      prices: prices ? { revision: prices.revision, asOf: prices.asOf } : null,
    };
  });
  if (!body || "badCursor" in body) fail({ reason: "bad-cursor", detail: "refused by board" });
  return body;
}

/** The board's score-against-cost plot at `version` under the prices in force (cached). */
export async function readCostPlot(
  c: Ctx,
  challengeId: string,
  version: number,
): Promise<{ challengeId: string } & CostPlot> {
  const prices = await readPrices(c);
  const key = `board/${challengeId}/v${version}/p${prices?.revision ?? 0}/cost-plot`;
  const body = await readThroughCache(c, key, c.var.cache.bodyTtlSeconds, async () => {
    const plot = (await boardOf(c, challengeId).getCostPlot(prices)) as BoardResult<
      CostPlot,
      PageError
    >;
    if (!plot.ok) {
      console.error(`cost plot of ${challengeId} refused`, plot.error);
      return null;
    }
    return { challengeId, ...plot.value };
  });
  if (!body) fail({ reason: "unavailable", service: "cost plot", retryAfter: 60 });
  return body;
}

/**
 * What a scored submission cost, priced with the table in force: from its stored usage (a
 * usage that does not parse counts as not measured, logged) and its iteration.
 */
export async function readSubmissionCost(c: Ctx, score: StoredScore): Promise<CostBreakdown> {
  const prices = await readPrices(c);
  let usage = null;
  if (score.usage !== null) {
    const parsed = RunUsageSchema.safeParse(parseJson(score.usage));
    if (parsed.success) usage = parsed.data;
    else console.error(`stored usage of ${score.submissionId} does not parse`, parsed.error);
  }
  return computeCost(usage, score.iteration, prices && compilePrices(prices));
}

/** A stored score and its parsed breakdown (the stored, owner-level one: filter before showing). */
export interface ScoredBreakdown {
  score: StoredScore;
  breakdown: BreakdownWire;
}

/**
 * The stored score and breakdown of a submission on a public challenge; 404 when there is
 * none, 503 when the stored breakdown does not parse.
 */
export async function readStoredBreakdown(c: Ctx, submissionId: string): Promise<ScoredBreakdown> {
  const score = await findStoredScore(c.env.DB, submissionId);
  if (!score) fail({ reason: "not-found", resource: "scored submission" });
  return { score, breakdown: readBreakdownOr503(score.submissionId, score.breakdown) };
}

/**
 * A stored breakdown (the score's, or the full-suite one) read for an answer that is the
 * breakdown: 503 when it does not parse (`parseStoredBreakdown`'s rule: a fault of ours).
 */
export function readBreakdownOr503(submissionId: string, text: string): BreakdownWire {
  const stored = parseStoredBreakdown(text);
  if (!stored.ok) {
    console.error(`stored breakdown of ${submissionId} does not parse`, stored.error.detail);
    fail({ reason: "unavailable", service: "breakdown", retryAfter: 60 });
  }
  return stored.value;
}
