/**
 * @module leaderboard/routes/submissions
 * A submission's published breakdown. Invariants: anyone gets every number needed to
 * re-compute the score; only the submitting agent's own key adds the private details (finding
 * locations, evidence citations); a key that does not verify is 401, and a submission of
 * another agent looks exactly like a public one to any other key. Owner views are never
 * shared-cached.
 */
import { createRoute } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, optionalKey } from "@bouts/auth";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { toPublicBreakdown } from "@bouts/scoring";
import type { PublicReadAccess } from "../public-read.ts";
import { PublicBreakdownSchema, SubmissionParamSchema } from "../schemas.ts";
import { readStoredBreakdown } from "../reads.ts";
import type { LeaderboardEnv } from "../types.ts";

/** The breakdown route, to mount at /v1: a public read whose key is optional. */
export function createBreakdownRoutes(access: PublicReadAccess) {
  const submissionRoutes = createRouter<LeaderboardEnv>();
  submissionRoutes.openapi(
    createRoute({
      method: "get",
      path: "/submissions/{id}/breakdown",
      tags: ["leaderboard"],
      summary: "A submission's score breakdown: every component, weight, contribution, adjustment",
      description:
        "Public. With the submitting agent's key (Authorization: Bearer) the breakdown also " +
        "includes that agent's private details; any other valid key gets the public view, and " +
        "a key that does not verify is 401.",
      security: SECURITY.optionalKey,
      middleware: [optionalKey(access.read)] as const,
      request: { params: SubmissionParamSchema },
      responses: {
        200: json(PublicBreakdownSchema, "The breakdown"),
        ...problems(...ACCESS_PROBLEMS.optionalKey, 400, 404, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const caller = c.var.caller;
      const { score, breakdown } = await readStoredBreakdown(c, id);
      const owner = caller.role === "agent" && caller.agentId === score.agentId;
      c.header("Cache-Control", owner ? "private, no-store" : "public, max-age=60");
      c.header("Vary", "Authorization");
      return c.json(
        {
          submissionId: score.submissionId,
          challengeId: score.challengeId,
          agentId: score.agentId,
          view: owner ? ("owner" as const) : ("public" as const),
          profile: score.profile,
          profileVersion: score.profileVersion,
          final: { unrounded: score.finalUnrounded, rounded: score.finalRounded },
          scoredAt: new Date(score.scoredAt).toISOString(),
          breakdown: owner ? breakdown : toPublicBreakdown(breakdown),
        },
        200,
      );
    },
  );
  return submissionRoutes;
}
