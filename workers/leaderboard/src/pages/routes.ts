/**
 * @module leaderboard/pages/routes
 * The public HTML pages (docs/pages.md): `/` (the challenges), `/challenges/{id or slug}`
 * (the leaderboard, `?cursor` and `?limit` pages) and `/submissions/{id}` (the breakdown); and
 * one operator page, a candidate version's diff report (`version-page.ts`, HTTP Basic).
 * Invariants: no public page reads or needs a key, and only the public breakdown is ever rendered; the
 * data comes through the API's own read paths and cache keys (`reads.ts`); every answer —
 * errors included — is HTML with a Content-Security-Policy that allows no inline script or
 * style and no other origin; bodies carry a weak ETag and honour If-None-Match; the per-IP
 * budget is the API's (`API_RATE_LIMIT`).
 */
import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import { decodeCursor } from "@bouts/ranking";
import { createDb } from "@bouts/db";
import { toPublicBreakdown } from "@bouts/scoring";
import {
  BOARD_CACHE_CONTROL,
  CHALLENGE_CACHE_CONTROL,
  matchesIfNoneMatch,
  readThroughCache,
  type CacheOptions,
} from "../cache.ts";
import { fail, LeaderboardHttpError, toProblem, type LeaderboardError } from "../errors.ts";
import {
  boardOf,
  clampLimit,
  readBoardPage,
  readCostPlot,
  readStoredBreakdown,
  readSubmissionCost,
  readVersion,
  resolveChallenge,
} from "../reads.ts";
import type { TrajectoryView } from "../rpc.ts";
import { findAgentNames, listPublicChallenges } from "../store.ts";
import type { LeaderboardEnv } from "../types.ts";
import { renderChallengePage } from "./challenge-page.ts";
import { html, type Html } from "./html.ts";
import { renderIndexPage } from "./index-page.ts";
import { renderDocument } from "./layout.ts";
import { readPrivateBoardView, renderPrivateBoard } from "./private-board-section.ts";
import { renderSubmissionPage } from "./submission-page.ts";
import {
  OPERATOR_REALM,
  readBasicOperator,
  readVersionReport,
  renderVersionPage,
} from "./version-page.ts";

/** Rows per leaderboard page when the URL names no `limit` (a phone screen or two). */
export const PAGE_LIMIT = 25;

/** Content-Security-Policy of every page: own scripts, styles and sockets only. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": PAGE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** `Cache-Control` of a submission page: a stored score changes only by a rescore. */
const SUBMISSION_CACHE_CONTROL = "public, max-age=60";

const PAGE_PATH = /^\/(?:challenges\/[^/]+(?:\/versions\/[^/]+)?|submissions\/[^/]+)?$/;

/** Whether the platform should route `request` to the pages (GET or HEAD of a page path). */
export function isPageRequest(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  return PAGE_PATH.test(new URL(request.url).pathname);
}

type Ctx = Context<LeaderboardEnv>;

async function weakEtag(body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  const hex = [...new Uint8Array(digest).slice(0, 12)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  return `W/"${hex}"`;
}

/** A page answer: 304 when the client has this body already, else the HTML. */
async function sendPage(c: Ctx, page: Html, cacheControl: string): Promise<Response> {
  const body = page.toString();
  const etag = await weakEtag(body);
  const headers = { ETag: etag, "Cache-Control": cacheControl };
  if (matchesIfNoneMatch(c.req.header("If-None-Match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  return c.html(body, 200, headers);
}

const ERROR_TITLES: Record<number, string> = {
  400: "That link is not valid",
  404: "Not found",
  426: "Upgrade required",
  429: "Too many requests",
  503: "Temporarily unavailable",
};

/** An error as an HTML page, with the status and headers its problem document would have. */
function renderErrorPage(err: unknown): {
  status: number;
  headers: Record<string, string>;
  page: Html;
} {
  if (!(err instanceof LeaderboardHttpError)) {
    console.error("unhandled page error", err);
    return {
      status: 500,
      headers: {},
      page: renderDocument({
        title: "Something went wrong",
        body: html`<h1>Something went wrong</h1>
          <p>Something went wrong on our side. Please try again.</p>
          <p><a href="/">All challenges</a></p>`,
      }),
    };
  }
  // Typed here: instanceof narrows `unknown` to the factory's class with an untyped `error`.
  const error: LeaderboardError = (err as InstanceType<typeof LeaderboardHttpError>).error;
  const { problem, headers } = toProblem(error);
  const hint =
    error.reason === "bad-cursor" || error.reason === "invalid"
      ? "This page link is not one the leaderboard issued, or it has expired. Start again from the first page."
      : problem.detail;
  const title = ERROR_TITLES[problem.status] ?? problem.title;
  return {
    status: problem.status,
    headers,
    page: renderDocument({
      title,
      body: html`<h1>${title}</h1>
        <p>${hint}</p>
        <p><a href="/">All challenges</a></p>`,
    }),
  };
}

/** Sets the cache options, then applies the per-IP budget shared with the API. */
function createPageMiddleware(cache: CacheOptions) {
  return createMiddleware<LeaderboardEnv>(async (c, next) => {
    c.set("cache", cache);
    const ip = c.req.header("cf-connecting-ip") ?? "unknown";
    const { success } = await c.env.API_RATE_LIMIT.limit({ key: `ip:${ip}` });
    if (!success) fail({ reason: "rate-limited", retryAfter: 60 });
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
  });
}

/** What the page draws beside each row, cached with the board version like the page itself. */
async function readRowDetails(
  c: Ctx,
  challengeId: string,
  version: number,
  key: string,
  agentIds: string[],
): Promise<{ names: Record<string, string>; trajectories: TrajectoryView[] }> {
  const load = async () => {
    if (agentIds.length === 0) return { names: {}, trajectories: [] };
    const [names, trajectories] = await Promise.all([
      findAgentNames(c.env.DB, agentIds),
      boardOf(c, challengeId).getTrajectories(agentIds) as Promise<TrajectoryView[]>,
    ]);
    return { names: Object.fromEntries(names), trajectories };
  };
  const cacheKey = `board/${challengeId}/v${version}/rows/${key}`;
  return (await readThroughCache(c, cacheKey, c.var.cache.bodyTtlSeconds, load)) ?? load();
}

/** The page routes, to mount at the root of the leaderboard app. */
export function createPageRoutes(cache: CacheOptions) {
  const pages = new Hono<LeaderboardEnv>();
  const middleware = createPageMiddleware(cache);
  // Scoped to the page paths: mounted at "/", a "*" middleware would also run for /v1.
  pages.use("/", middleware);
  pages.use("/challenges/:id", middleware);
  pages.use("/submissions/:id", middleware);
  pages.use("/challenges/:id/versions/:version", middleware);

  pages.get("/", async (c) => {
    const db = createDb(c.env.DB);
    const ttl = c.var.cache.challengeTtlSeconds;
    const [published, closed] = await Promise.all([
      readThroughCache(c, "challenge-list/published", ttl, () =>
        listPublicChallenges(db, "published"),
      ),
      readThroughCache(c, "challenge-list/closed", ttl, () => listPublicChallenges(db, "closed")),
    ]);
    return sendPage(c, renderIndexPage(published ?? [], closed ?? []), CHALLENGE_CACHE_CONTROL);
  });

  pages.get("/challenges/:id", async (c) => {
    const limit = clampLimit(c.req.query("limit"), PAGE_LIMIT);
    const rawCursor = c.req.query("cursor");
    const cursor = rawCursor === undefined || rawCursor === "" ? null : rawCursor;
    if (cursor !== null && !decodeCursor(cursor).ok) {
      fail({ reason: "bad-cursor", detail: "undecodable" });
    }
    const challenge = await resolveChallenge(c, c.req.param("id"));
    const version = await readVersion(c, challenge.id);
    const page = await readBoardPage(c, challenge.id, version, limit, cursor);
    const details = await readRowDetails(
      c,
      challenge.id,
      version,
      `${limit}/${cursor ?? ""}`,
      page.entries.map((e) => e.agentId),
    );
    // The cost plot heads the first page only; a plot that cannot be read leaves it out.
    const costPlot = cursor ? null : await readCostPlot(c, challenge.id, version).catch(() => null);
    const plotted = (costPlot?.points ?? []).map((p) => p.agentId);
    const missing = plotted.filter((id) => !(id in details.names));
    const names =
      missing.length > 0
        ? { ...details.names, ...Object.fromEntries(await findAgentNames(c.env.DB, missing)) }
        : details.names;
    // A closed split challenge also shows its private board and the shake-up (§29). Read from
    // D1 (a row exists only once the challenge closed), not from the cached challenge's status,
    // so the board shows as soon as it is published.
    const privateBoard = await readPrivateBoardView(c.env.DB, challenge.id);
    const privateNames = privateBoard
      ? Object.fromEntries(
          await findAgentNames(
            c.env.DB,
            privateBoard.entries.map((e) => e.agentId),
          ),
        )
      : {};
    const body = renderChallengePage({
      challenge,
      page,
      privateBoard: renderPrivateBoard(privateBoard, privateNames),
      names,
      trajectories: details.trajectories,
      limit,
      defaultLimit: PAGE_LIMIT,
      cursor,
      costPlot,
    });
    return sendPage(c, body, BOARD_CACHE_CONTROL);
  });

  pages.get("/submissions/:id", async (c) => {
    const { score, breakdown } = await readStoredBreakdown(c, c.req.param("id"));
    const [challenge, names, cost] = await Promise.all([
      resolveChallenge(c, score.challengeId),
      findAgentNames(c.env.DB, [score.agentId]),
      readSubmissionCost(c, score),
    ]);
    const body = renderSubmissionPage({
      challenge,
      agentName: names.get(score.agentId) ?? score.agentId,
      score,
      cost,
      breakdown: toPublicBreakdown(breakdown),
    });
    return sendPage(c, body, SUBMISSION_CACHE_CONTROL);
  });

  // The operator's diff report of a candidate version (§30): HTTP Basic, the operator key as
  // the password; never cached.
  pages.get("/challenges/:id/versions/:version", async (c) => {
    const operatorId = await readBasicOperator(c.env.DB, c.req.header("Authorization"));
    if (!operatorId)
      return c.html(
        renderDocument({
          title: "Operator key needed",
          body: html`<h1>Operator key needed</h1>
            <p>
              This report names hidden tests. Sign in with any user name and the challenge
              operator's API key as the password.
            </p>`,
        }).toString(),
        401,
        { "WWW-Authenticate": OPERATOR_REALM, "Cache-Control": "no-store" },
      );
    const version = Number(c.req.param("version"));
    if (!Number.isSafeInteger(version) || version < 1)
      fail({ reason: "not-found", resource: "challenge version" });
    const view = await readVersionReport(c.env.DB, operatorId, c.req.param("id"), version);
    return c.html(renderVersionPage(view).toString(), 200, {
      "Cache-Control": "private, no-store",
    });
  });

  pages.onError((err, c) => {
    const { status, headers, page } = renderErrorPage(err);
    const res = c.html(page.toString(), status as 400, {
      ...headers,
      "Cache-Control": "no-store",
    });
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
    return res;
  });

  return pages;
}
