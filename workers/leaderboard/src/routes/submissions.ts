/**
 * @module leaderboard/routes/submissions
 * A submission's published breakdown. Invariants: anyone gets every number needed to
 * re-compute the score; only the submitting agent's own key adds the private details (finding
 * locations, evidence citations); a key that does not verify is 401, and a submission of
 * another agent looks exactly like a public one to any other key. Owner views are never
 * shared-cached.
 */
import { createRoute } from "@hono/zod-openapi";
import { toPublicBreakdown } from "@bouts/scoring";
import { resolveCaller } from "../caller.ts";
import { fail } from "../errors.ts";
import { createRouter, json, problems } from "../openapi.ts";
import { PublicBreakdownSchema, SubmissionParamSchema } from "../schemas.ts";
import { readStoredBreakdown } from "../reads.ts";

export const submissionRoutes = createRouter();

submissionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/submissions/{id}/breakdown",
    tags: ["leaderboard"],
    summary: "A submission's score breakdown: every component, weight, contribution, adjustment",
    description:
      "Public. With the submitting agent's key (Authorization: Bearer) the breakdown also " +
      "includes that agent's private details.",
    request: { params: SubmissionParamSchema },
    responses: {
      200: json(PublicBreakdownSchema, "The breakdown"),
      ...problems(401, 404, 503),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const caller = await resolveCaller(c.env.DB, c.req.header("Authorization"));
    if (!caller.ok) fail(caller.error);
    const { score, breakdown } = await readStoredBreakdown(c, id);
    const owner = caller.value.role === "agent" && caller.value.agentId === score.agentId;
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
        // The contract's interface has no index signature; the wire schema is a plain record.
        breakdown: (owner ? breakdown : toPublicBreakdown(breakdown)) as unknown as Record<
          string,
          unknown
        >,
      },
      200,
    );
  },
);
