/**
 * @module edge/app
 * The app shell every role's routes are mounted in: the validation hook that turns zod issues
 * into the one 400 problem, the one `onError`, and the answer to a request no route takes
 * (404, or 405 with `Allow` when the path exists under other methods), and the deadline on
 * every request body (edge/body-deadline). Invariants: every
 * failure is problem+json; an unexpected error is a logged, generic 500 that never echoes
 * internals; Hono's own aborts (malformed JSON, an unsupported media type) keep their status.
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { HTTPException } from "hono/http-exception";
import { buildProblem, problemFromZodError } from "@bouts/contracts";
import {
  bodyDeadline,
  BodyTimeoutError,
  bodyTimeoutResponse,
  DEFAULT_BODY_DEADLINE,
  type BodyDeadline,
} from "./body-deadline.ts";
import { HttpError, problemResponse } from "./http-error.ts";

/** A validation result as the zod-openapi hook receives it. */
type ValidationResult = { success: true } | { success: false; error: z.ZodError; target: string };

/** The validation hook of every router: a zod failure is a 400 problem naming each field. */
export function answerInvalid(result: ValidationResult): Response | undefined {
  if (!result.success) return problemResponse(problemFromZodError(result.error, result.target));
  return undefined;
}

/** A sub-app for a role's routes, whose validation failures render as problem+json (400). */
export function createRouter<E extends Env>() {
  return new OpenAPIHono<E>({ defaultHook: answerInvalid });
}

/** Renders any error thrown while handling a request: the app's one `onError`. */
export function handleError(err: Error): Response {
  if (err instanceof HttpError) return problemResponse(err.problem, { ...err.headers });
  if (err instanceof BodyTimeoutError) return bodyTimeoutResponse(err);
  if (err instanceof HTTPException) {
    const detail = err.message || "The request could not be processed.";
    return problemResponse(buildProblem(err.status, "http", "Request refused", detail));
  }
  console.error("unhandled error", err);
  return problemResponse(
    buildProblem(500, "internal", "Internal error", "Something went wrong on our side."),
  );
}

// ─── No route: 404 or 405 ───

/** A registered route as Hono lists it (`app.routes`). */
type RouteEntry = { method: string; path: string };

const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

const compiled = new Map<string, RegExp>();

/** A regular expression for a Hono path pattern (`/v1/challenges/:id`, `/files/*`). */
function compilePath(pattern: string): RegExp {
  const known = compiled.get(pattern);
  if (known) return known;
  const source = pattern
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*";
      const param = /^:[^{]+(?:\{(.+)\})?$/.exec(segment);
      if (param) return param[1] ? `(?:${param[1]})` : "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  const re = new RegExp(`^${source}$`);
  compiled.set(pattern, re);
  return re;
}

/**
 * The methods routes accept on `path` (HEAD wherever GET is, as Hono serves it), in a stable
 * order; empty when no route has this path. Middleware (`use`, method ALL) does not count.
 */
export function resolveAllowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    if (r.method === "ALL" || !compilePath(r.path).test(path)) continue;
    methods.add(r.method);
    if (r.method === "GET") methods.add("HEAD");
  }
  return [...methods].sort(
    (a, b) => (METHOD_ORDER.indexOf(a) + 1 || 99) - (METHOD_ORDER.indexOf(b) + 1 || 99),
  );
}

/**
 * The answer to a request no route took: 405 with `Allow` when the path is served under
 * other methods (RFC 9110 §15.5.6), else 404.
 */
export function answerUnmatched(
  routes: readonly RouteEntry[],
  method: string,
  path: string,
): Response {
  const allowed = resolveAllowedMethods(routes, path);
  if (allowed.length === 0) {
    return problemResponse(buildProblem(404, "not-found", "Not found", "No such route."));
  }
  const allow = allowed.join(", ");
  return problemResponse(
    buildProblem(
      405,
      "method-not-allowed",
      "Method not allowed",
      `This route does not accept ${method}; it accepts ${allow}.`,
    ),
    { Allow: allow },
  );
}

/** Options of the app shell (tests shorten the body deadline). */
export interface AppOptions {
  bodyDeadline?: BodyDeadline;
}

/**
 * The app shell: routes are mounted on it with `app.route()`; it owns the one `onError`, the
 * 404/405 answer, computed from every route mounted by the time a request arrives, and the
 * deadline on request bodies (408 for a body that stops arriving).
 * @example const app = createApp<AppEnv>().route("/v1", ingestRoutes)
 */
export function createApp<E extends Env>(options: AppOptions = {}) {
  const app = createRouter<E>();
  app.use("*", bodyDeadline(options.bodyDeadline ?? DEFAULT_BODY_DEADLINE));
  app.notFound((c) => answerUnmatched(app.routes, c.req.method, c.req.path));
  app.onError((err) => handleError(err));
  return app;
}
