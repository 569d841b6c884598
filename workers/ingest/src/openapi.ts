/**
 * @module ingest/openapi
 * Helpers that keep route definitions short and the OpenAPI document complete: the shared
 * problem responses, JSON bodies, the bearer security requirement and the validation hook
 * that turns every zod failure into the one problem shape.
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import { PROBLEM_CONTENT_TYPE, problemFromZodError } from "@bouts/contracts";
import { problemResponse } from "./errors.ts";
import { ProblemDocSchema } from "./schemas.ts";
import type { IngestEnv } from "./types.ts";

const STATUS_TEXT: Record<number, string> = {
  400: "Malformed request: the problem's `errors` name each offending field",
  401: "Missing, malformed or revoked API key",
  403: "The key's role may not use this route",
  404: "No such resource (or not yours)",
  409: "Conflicts with the resource's current state",
  411: "Content-Length required",
  413: "Upload too large",
  415: "Unsupported media type or archive signature",
  422: "Well-formed but breaks a rule; `detail` (and `rule`) say which",
  429: "Rate limit or quota exceeded; see Retry-After",
  503: "A dependency is unavailable; nothing was stored",
};

/** Problem responses for the given statuses, for a route's `responses`. */
export function problems(...statuses: (keyof typeof STATUS_TEXT)[]) {
  return Object.fromEntries(
    [...new Set([400, 401, 429, ...statuses])].map((s) => [
      s,
      {
        description: STATUS_TEXT[s] ?? "Error",
        content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemDocSchema } },
      },
    ]),
  );
}

/** A JSON request or response body. */
export function json<T extends z.ZodType>(schema: T, description = "") {
  return { description, content: { "application/json": { schema } } };
}

/** The security requirement of every /v1 route. */
export const BEARER = [{ bearerAuth: [] }];

/** A sub-app whose validation failures render as problem+json (400). */
export function createRouter() {
  return new OpenAPIHono<IngestEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        return problemResponse(problemFromZodError(result.error, result.target));
      }
    },
  });
}
