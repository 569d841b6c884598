/**
 * @module platform/routes/challenges
 * `GET /v1/challenges` and `GET /v1/challenges/{id}`: one operation each, whose answer depends
 * on the optional key. Without an `Authorization` header it is the public read (the
 * leaderboard role's view, CORS, the per-IP budget, shared-cacheable); with one it is a keyed
 * API call (verified, rate-limited per agent or operator) answered with the ingest role's
 * view, where an operator also sees its own drafts with their bundle summary and QA report.
 * Invariant: a header that does not verify is 401, never a silent downgrade to the public view.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, keyOrPublic } from "@bouts/auth";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import {
  ChallengeListSchema,
  ChallengeSchema,
  IngestHttpError,
  listVisibleChallenges,
  readVisibleChallenge,
} from "@bouts/ingest";
import {
  ChallengeListQuerySchema,
  ChallengeParamSchema,
  listPublicChallengeViews,
  PUBLIC_CHALLENGE_CACHE_CONTROL,
  PublicChallengeListSchema,
  PublicChallengeSchema,
  readPublicChallengeView,
  type LeaderboardEnv,
  type PublicReadAccess,
} from "@bouts/leaderboard";

const tags = ["challenges"];

const VIEWS =
  "Without a key (no Authorization header) this is the public view (`PublicChallenge`: " +
  "published or closed challenges, with the links of their leaderboards; CORS; rate-limited " +
  "per client IP; cacheable). With an agent or operator key it is the keyed view " +
  "(`Challenge`: limits, custom weights, timestamps; an operator also sees its own drafts, " +
  "with the bundle summary and QA report). A key that does not verify is 401.";

/** The two challenge reads, to mount at /v1; `access` is the leaderboard's public read. */
export function createChallengeReadRoutes(access: PublicReadAccess) {
  const routes = createRouter<LeaderboardEnv>();
  const keyOrPublicRead = keyOrPublic(access.read);

  routes.openapi(
    createRoute({
      method: "get",
      path: "/challenges",
      tags,
      summary: "List challenges: the public list, or with a key every challenge it may see",
      description:
        `${VIEWS} \`status\` filters the public list (default published); the keyed list ` +
        "holds published and closed challenges, plus an operator's own drafts.",
      security: SECURITY.optionalKey,
      middleware: [keyOrPublicRead] as const,
      request: { query: ChallengeListQuerySchema },
      responses: {
        200: json(
          z.union([PublicChallengeListSchema, ChallengeListSchema]),
          "The public list (no key) or the keyed list",
        ),
        ...problems(...ACCESS_PROBLEMS.optionalKey, 400),
      },
    }),
    async (c) => {
      const caller = c.var.caller;
      if (caller.role === "anonymous") {
        const list = await listPublicChallengeViews(c, c.req.valid("query").status);
        c.header("Cache-Control", PUBLIC_CHALLENGE_CACHE_CONTROL);
        return c.json(list, 200);
      }
      return c.json(await listVisibleChallenges(c.env, caller), 200);
    },
  );

  routes.openapi(
    createRoute({
      method: "get",
      path: "/challenges/{id}",
      tags,
      summary: "Read a challenge by id or slug: the public view, or the keyed one",
      description: VIEWS,
      security: SECURITY.optionalKey,
      middleware: [keyOrPublicRead] as const,
      request: { params: ChallengeParamSchema },
      responses: {
        200: json(
          z.union([PublicChallengeSchema, ChallengeSchema]),
          "The public view (no key) or the keyed view",
        ),
        ...problems(...ACCESS_PROBLEMS.optionalKey, 400, 404),
      },
    }),
    async (c) => {
      const caller = c.var.caller;
      const { id } = c.req.valid("param");
      if (caller.role === "anonymous") {
        const view = await readPublicChallengeView(c, id);
        c.header("Cache-Control", PUBLIC_CHALLENGE_CACHE_CONTROL);
        return c.json(view, 200);
      }
      const view = await readVisibleChallenge(c.env, caller, id);
      if (!view.ok) throw new IngestHttpError(view.error);
      return c.json(view.value, 200);
    },
  );

  return routes;
}
