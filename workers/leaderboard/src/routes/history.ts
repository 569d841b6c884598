/**
 * @module leaderboard/routes/history
 * Reading the audit trail. A submission's history (every event about it: scored, failed,
 * rejudged, removed, rescored …) is for its owner agent and the operator that owns its
 * challenge; a challenge's history (its `challenge`-scope events: rebuilt, promoted,
 * discarded …) is public. Invariants: the trail is only read here; any other key sees another
 * agent's submission exactly as a missing one (404), so ids cannot be probed; drafts have no
 * public history (404).
 */
import { createRoute } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { ACCESS_PROBLEMS, checkRateLimit, resolvePrincipal, type PrincipalEnv } from "@bouts/auth";
import {
  createDb,
  findChallenge,
  findSubmission,
  listChallengeHistory,
  listSubmissionHistory,
} from "@bouts/db";
import {
  AGENT_KEY_SCHEME,
  createRouter,
  json,
  OPERATOR_KEY_SCHEME,
  problems,
  SECURITY,
} from "@bouts/edge";
import { historyPage } from "../audit.ts";
import { fail } from "../errors.ts";
import type { PublicReadAccess } from "../public-read.ts";
import { resolveChallenge } from "../reads.ts";
import {
  AuditHistorySchema,
  ChallengeParamSchema,
  HistoryQuerySchema,
  SubmissionParamSchema,
} from "../schemas.ts";
import type { LeaderboardEnv } from "../types.ts";

const DEFAULT_HISTORY_LIMIT = 100;

/** An agent key or an operator key. */
const EITHER_KEY: Record<string, string[]>[] = [
  { [AGENT_KEY_SCHEME]: [] },
  { [OPERATOR_KEY_SCHEME]: [] },
];

/** A key of either role (401), then its owner's rate limit (429); the handler decides access. */
const anyKey = createMiddleware<PrincipalEnv>(async (c, next) => {
  const principal = await resolvePrincipal(c.env.DB, c.req.header("Authorization"));
  c.set("principal", principal);
  await checkRateLimit(c.env.API_RATE_LIMIT, principal, "requests");
  await next();
});

/** The history routes, to mount at /v1. */
export function createHistoryRoutes(access: PublicReadAccess) {
  const routes = createRouter<LeaderboardEnv>();

  routes.openapi(
    createRoute({
      method: "get",
      path: "/submissions/{id}/history",
      tags: ["audit"],
      summary: "A submission's audit history, oldest first (its owner agent, or the operator)",
      description:
        "Every change to the submission's score or ranking: who made it, why, when, and the " +
        "state before and after. Readable with the submitting agent's key or the key of the " +
        "operator that owns the challenge; to anyone else the submission does not exist.",
      security: EITHER_KEY,
      middleware: [anyKey] as const,
      request: { params: SubmissionParamSchema, query: HistoryQuerySchema },
      responses: {
        200: json(AuditHistorySchema, "The history"),
        ...problems(401, 403, 429, 400, 404),
      },
    }),
    async (c) => {
      const db = createDb(c.env.DB);
      const p = c.var.principal;
      const s = await findSubmission(db, c.req.valid("param").id);
      const ch = s ? await findChallenge(db, s.challengeId) : undefined;
      const allowed =
        s !== undefined &&
        ch !== undefined &&
        ((p.role === "agent" && p.agentId === s.agentId) ||
          (p.role === "operator" && p.operatorId === ch.createdBy));
      if (!allowed || !s) fail({ reason: "not-found", resource: "submission" });
      const q = c.req.valid("query");
      const limit = q.limit ?? DEFAULT_HISTORY_LIMIT;
      const rows = await listSubmissionHistory(db, s.id, { afterSeq: q.after, limit });
      c.header("Cache-Control", "private, no-store");
      return c.json(historyPage(rows, limit), 200);
    },
  );

  routes.openapi(
    createRoute({
      method: "get",
      path: "/challenges/{id}/history",
      tags: ["audit"],
      summary: "A challenge's public audit history, oldest first",
      description:
        "Challenge-level changes: board rebuilds, version promotions and discards, private " +
        "board publication. Public; a draft has none (404).",
      security: SECURITY.public,
      middleware: [access.read] as const,
      request: { params: ChallengeParamSchema, query: HistoryQuerySchema },
      responses: {
        200: json(AuditHistorySchema, "The history"),
        ...problems(...ACCESS_PROBLEMS.public, 400, 404),
      },
    }),
    async (c) => {
      const ch = await resolveChallenge(c, c.req.valid("param").id);
      const q = c.req.valid("query");
      const limit = q.limit ?? DEFAULT_HISTORY_LIMIT;
      const rows = await listChallengeHistory(createDb(c.env.DB), ch.id, {
        afterSeq: q.after,
        limit,
      });
      c.header("Cache-Control", "public, max-age=10");
      return c.json(historyPage(rows, limit), 200);
    },
  );
  return routes;
}
