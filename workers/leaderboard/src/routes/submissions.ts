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
import type { PublicReadAccess } from "../public-read.ts";
import { PublicBreakdownSchema, SubmissionParamSchema } from "../schemas.ts";
import { readBreakdownView, readFullBreakdownView } from "../board-views.ts";
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
      const body = await readBreakdownView(c, c.req.valid("param").id, c.var.caller);
      c.header("Cache-Control", body.view === "owner" ? "private, no-store" : "public, max-age=60");
      c.header("Vary", "Authorization");
      return c.json(body, 200);
    },
  );
  submissionRoutes.openapi(
    createRoute({
      method: "get",
      path: "/submissions/{id}/full-breakdown",
      tags: ["leaderboard"],
      summary: "A submission's breakdown on the full suite, public and private tests (after close)",
      description:
        "For a challenge with a public/private split, once it has closed: the score the " +
        "private board ranks. 409 while the challenge is open; 404 for a submission with no " +
        "full-suite score. Owner and public views as for the breakdown.",
      security: SECURITY.optionalKey,
      middleware: [optionalKey(access.read)] as const,
      request: { params: SubmissionParamSchema },
      responses: {
        200: json(PublicBreakdownSchema, "The full-suite breakdown"),
        ...problems(...ACCESS_PROBLEMS.optionalKey, 400, 404, 409, 503),
      },
    }),
    async (c) => {
      const body = await readFullBreakdownView(c, c.req.valid("param").id, c.var.caller);
      c.header("Cache-Control", body.view === "owner" ? "private, no-store" : "public, max-age=60");
      c.header("Vary", "Authorization");
      return c.json(body, 200);
    },
  );
  return submissionRoutes;
}
