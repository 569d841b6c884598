/**
 * @module leaderboard/errors
 * Domain errors of the public leaderboard API and their one mapping to HTTP
 * (`application/problem+json`). Invariant: `toProblem` is an exhaustive switch with no
 * default, so a new reason fails to compile until it is mapped; wire messages never carry
 * internals (the rich reason goes to logs).
 */
import { buildProblem, PROBLEM_CONTENT_TYPE, type Problem } from "@bouts/contracts";

/** Every expected failure of the leaderboard API, tagged by `reason`. */
export type LeaderboardError =
  | { reason: "not-found"; resource: string }
  | { reason: "invalid"; problem: Problem }
  | { reason: "bad-cursor"; detail: string }
  | { reason: "unauthenticated"; detail: string }
  | { reason: "forbidden"; detail: string }
  | { reason: "upgrade-required" }
  | { reason: "rate-limited"; retryAfter: number }
  | { reason: "unavailable"; service: string; retryAfter: number };

/** Thrown to abort a request with a domain error; `app.onError` renders it. */
export class LeaderboardHttpError extends Error {
  override readonly name = "LeaderboardHttpError";
  readonly error: LeaderboardError;
  constructor(error: LeaderboardError) {
    super(error.reason);
    this.error = error;
  }
}

/** Aborts the current request with `error`. */
export function fail(error: LeaderboardError): never {
  throw new LeaderboardHttpError(error);
}

/** The problem document and extra headers for a domain error. */
export function toProblem(e: LeaderboardError): {
  problem: Problem;
  headers: Record<string, string>;
} {
  switch (e.reason) {
    case "not-found":
      return {
        problem: buildProblem(404, e.reason, "Not found", `No such ${e.resource}.`),
        headers: {},
      };
    case "invalid":
      return { problem: e.problem, headers: {} };
    case "bad-cursor":
      return {
        problem: buildProblem(
          400,
          e.reason,
          "Invalid cursor",
          "The cursor is not one this API issued; start again without a cursor.",
          { errors: [{ path: "cursor", message: "not a cursor this API issued" }] },
        ),
        headers: {},
      };
    case "unauthenticated":
      return {
        problem: buildProblem(401, e.reason, "Unauthorized", e.detail),
        headers: { "WWW-Authenticate": 'Bearer realm="bouts"' },
      };
    case "forbidden":
      return { problem: buildProblem(403, e.reason, "Forbidden", e.detail), headers: {} };
    case "upgrade-required":
      return {
        problem: buildProblem(
          426,
          e.reason,
          "Upgrade required",
          "This route only accepts a WebSocket upgrade (Upgrade: websocket).",
        ),
        headers: { Upgrade: "websocket" },
      };
    case "rate-limited":
      return {
        problem: buildProblem(429, e.reason, "Too many requests", "Too many requests; slow down."),
        headers: { "Retry-After": String(e.retryAfter) },
      };
    case "unavailable":
      return {
        problem: buildProblem(
          503,
          e.reason,
          "Service unavailable",
          `The ${e.service} is not available yet. Retry later.`,
        ),
        headers: { "Retry-After": String(e.retryAfter) },
      };
  }
}

/** Renders a problem document as a response. */
export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "Content-Type": PROBLEM_CONTENT_TYPE, ...headers },
  });
}

/** Renders a domain error as a response. */
export function errorResponse(e: LeaderboardError): Response {
  const { problem, headers } = toProblem(e);
  return problemResponse(problem, headers);
}
