/**
 * @module leaderboard/routes/operators
 * The operator's rebuild: reads a challenge's whole result history from D1 (the score
 * worker's `scores` table joined with submissions and entries) and replaces the Durable
 * Object's board with it. Invariants: operator keys only; while `scores` does not exist the
 * route answers 503 and the board is untouched.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createDb, findChallenge } from "@bouts/db";
import { resolveCaller } from "../caller.ts";
import { fail } from "../errors.ts";
import { createRouter, json, problems } from "../openapi.ts";
import { ChallengeParamSchema } from "../schemas.ts";
import { readResultHistory } from "../store.ts";

export const operatorRoutes = createRouter();

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
    security: [{ bearerAuth: [] }],
    request: { params: ChallengeParamSchema },
    responses: {
      200: json(RebuildResultSchema, "The rebuilt board"),
      ...problems(401, 403, 404, 503),
    },
  }),
  async (c) => {
    const caller = await resolveCaller(c.env.DB, c.req.header("Authorization"));
    if (!caller.ok) fail(caller.error);
    if (caller.value.role === "anonymous") {
      fail({ reason: "unauthenticated", detail: "Send an operator key: Authorization: Bearer." });
    }
    if (caller.value.role !== "operator") {
      fail({ reason: "forbidden", detail: "This route needs an operator key." });
    }
    const ch = await findChallenge(createDb(c.env.DB), c.req.valid("param").id);
    if (!ch || ch.createdBy !== caller.value.operatorId) {
      fail({ reason: "not-found", resource: "challenge" });
    }
    const history = await readResultHistory(c.env.DB, ch.id);
    if (!history.ok) fail({ reason: "unavailable", service: "score store", retryAfter: 60 });
    const board = c.env.LEADERBOARD.getByName(ch.id);
    const done = await board.rebuild({
      challengeId: ch.id,
      rankingMode: ch.rankingMode,
      rows: history.value,
    });
    if (!done.ok) {
      // Rows D1 holds that the board refuses: a data fault to investigate, not a client error.
      console.error(`rebuild of ${ch.id} refused`, done.error);
      fail({ reason: "unavailable", service: "leaderboard rebuild", retryAfter: 60 });
    }
    return c.json({ challengeId: ch.id, ...done.value }, 200);
  },
);
