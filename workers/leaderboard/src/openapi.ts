/**
 * @module leaderboard/openapi
 * Route-definition helpers shared by the public routes: problem responses, JSON bodies, and
 * the validation hook that renders every zod failure as the one problem shape (400).
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import { PROBLEM_CONTENT_TYPE, problemFromZodError } from "@bouts/contracts";
import { problemResponse } from "./errors.ts";
import { ProblemDocSchema } from "./schemas.ts";
import type { LeaderboardEnv } from "./types.ts";

const STATUS_TEXT: Record<number, string> = {
  400: "Malformed request (a bad id or a cursor this API did not issue)",
  401: "An Authorization header was sent but the key is not valid",
  403: "The key's role may not use this route",
  404: "No such resource",
  426: "Only a WebSocket upgrade is accepted here",
  429: "Rate limit exceeded; see Retry-After",
  503: "A dependency is unavailable; retry later",
};

/** Problem responses for the given statuses, for a route's `responses`. */
export function problems(...statuses: (keyof typeof STATUS_TEXT)[]) {
  return Object.fromEntries(
    [...new Set([400, 429, ...statuses])].map((s) => [
      s,
      {
        description: STATUS_TEXT[s] ?? "Error",
        content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemDocSchema } },
      },
    ]),
  );
}

/** A JSON response body. */
export function json<T extends z.ZodType>(schema: T, description = "") {
  return { description, content: { "application/json": { schema } } };
}

/** A sub-app whose validation failures render as problem+json (400). */
export function createRouter() {
  return new OpenAPIHono<LeaderboardEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        return problemResponse(problemFromZodError(result.error, result.target));
      }
    },
  });
}
