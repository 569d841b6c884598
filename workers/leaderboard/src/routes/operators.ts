/**
 * @module leaderboard/routes/operators
 * The operator's rebuild: reads a challenge's whole result history from D1 (the score
 * worker's `scores` table joined with submissions and entries) and replaces the Durable
 * Object's board with it. Invariants: operator keys only (`operatorOnly`), and only the
 * operator that owns the challenge (another's is 404); rows the board refuses answer 503 and
 * leave the board untouched.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { createDb, findChallenge, listResultHistory, listScoreIntervals } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { fail } from "../errors.ts";
import { ChallengeParamSchema } from "../schemas.ts";
import type { LeaderboardEnv } from "../types.ts";

/** The rebuild route, to mount at /v1. */
export const operatorRoutes = createRouter<LeaderboardEnv>();

const RebuildResultSchema = z
  .object({
    challengeId: z.string(),
    agents: z.int(),
    results: z.int(),
    version: z.int(),
  })
  .openapi("LeaderboardRebuild");

operatorRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/leaderboard/rebuild",
    tags: ["leaderboard"],
    summary: "Rebuild a challenge's leaderboard from the stored scores (operators)",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: ChallengeParamSchema },
    responses: {
      200: json(RebuildResultSchema, "The rebuilt board"),
      ...problems(...ACCESS_PROBLEMS.operator, 400, 404, 503),
    },
  }),
  async (c) => {
    const operatorId = operatorIdOf(c.var.principal);
    const ch = await findChallenge(createDb(c.env.DB), c.req.valid("param").id);
    if (!ch || ch.createdBy !== operatorId) {
      fail({ reason: "not-found", resource: "challenge" });
    }
    const history = await listResultHistory(createDb(c.env.DB), ch.id);
    // Each score's 95 % interval rides along, so the rebuilt board keeps its rank ranges.
    const intervals = new Map(
      (await listScoreIntervals(createDb(c.env.DB), ch.id)).map((i) => [i.submissionId, i]),
    );
    const rows = history.map((r) => {
      const i = intervals.get(r.submissionId);
      return i ? { ...r, interval: { low: i.low, high: i.high } } : r;
    });
    const board = c.env.LEADERBOARD.getByName(ch.id);
    const done = await board.rebuild({
      challengeId: ch.id,
      rankingMode: ch.rankingMode,
      rows,
    });
    if (!done.ok) {
      // Rows D1 holds that the board refuses: a data fault to investigate, not a client error.
      console.error(`rebuild of ${ch.id} refused`, done.error);
      fail({ reason: "unavailable", service: "leaderboard rebuild", retryAfter: 60 });
    }
    return c.json({ challengeId: ch.id, ...done.value }, 200);
  },
);
