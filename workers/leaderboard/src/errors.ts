/**
 * @module leaderboard/errors
 * Domain errors of the public leaderboard API and their one mapping to HTTP
 * (`application/problem+json`, rendered by the edge kit's `onError`; the pages render the same
 * mapping as HTML). Invariant: `toProblem` is an exhaustive switch with no default, so a new
 * reason fails to compile until it is mapped; wire messages never carry internals (the rich
 * reason goes to logs). Keys and roles are @bouts/auth's.
 */
import { buildProblem, type Problem } from "@bouts/contracts";
import { HttpError, type ProblemAnswer } from "@bouts/edge";

/** Every expected failure of the leaderboard API, tagged by `reason`. */
export type LeaderboardError =
  | { reason: "not-found"; resource: string }
  | { reason: "invalid"; problem: Problem }
  | { reason: "bad-cursor"; detail: string }
  | { reason: "upgrade-required" }
  | { reason: "rate-limited"; retryAfter: number }
  | { reason: "unavailable"; service: string; retryAfter: number };

/** Thrown to abort a request with a domain error; the app's `onError` renders it. */
export class LeaderboardHttpError extends HttpError {
  override readonly name = "LeaderboardHttpError";
  readonly error: LeaderboardError;
  constructor(error: LeaderboardError) {
    super(toProblem(error));
    this.error = error;
  }
}

/** Aborts the current request with `error`. */
export function fail(error: LeaderboardError): never {
  throw new LeaderboardHttpError(error);
}

/** The problem document and extra headers for a domain error. */
export function toProblem(e: LeaderboardError): ProblemAnswer {
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
