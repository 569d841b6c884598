/**
 * @module leaderboard/errors
 * Domain errors of the public leaderboard API and their one mapping to HTTP
 * (`application/problem+json`, rendered by the edge kit's `onError`; the pages render the same
 * mapping as HTML). Invariant: `toProblem` is an exhaustive switch with no default, so a new
 * reason fails to compile until it is mapped; wire messages never carry internals (the rich
 * reason goes to logs). Keys and roles are @bouts/auth's.
 */
import { buildProblem } from "@bouts/contracts";
import {
  answerProblem,
  answerRetryLater,
  answerSharedError,
  defineDomainHttpError,
} from "@bouts/edge";
import type { ProblemAnswer, SharedDomainError } from "@bouts/edge";

/** Every expected failure of the leaderboard API, tagged by `reason`. */
export type LeaderboardError =
  | SharedDomainError
  | { reason: "bad-cursor"; detail: string }
  | { reason: "upgrade-required" }
  | { reason: "conflict"; detail: string }
  | { reason: "rate-limited"; retryAfter: number }
  | { reason: "unavailable"; service: string; retryAfter: number };

/** Thrown to abort a request with a domain error; the app's `onError` renders it. */
export const LeaderboardHttpError = defineDomainHttpError<LeaderboardError>(
  "LeaderboardHttpError",
  toProblem,
);

/** Aborts the current request with `error`. */
export const fail: (error: LeaderboardError) => never = LeaderboardHttpError.fail;

/** The problem document and extra headers for a domain error. */
export function toProblem(e: LeaderboardError): ProblemAnswer {
  switch (e.reason) {
    case "not-found":
    case "invalid":
      return answerSharedError(e);
    case "bad-cursor":
      return answerProblem(
        buildProblem(
          400,
          e.reason,
          "Invalid cursor",
          "The cursor is not one this API issued; start again without a cursor.",
          { errors: [{ path: "cursor", message: "not a cursor this API issued" }] },
        ),
      );
    case "upgrade-required":
      return answerProblem(
        buildProblem(
          426,
          e.reason,
          "Upgrade required",
          "This route only accepts a WebSocket upgrade (Upgrade: websocket).",
        ),
        { Upgrade: "websocket" },
      );
    case "conflict":
      return answerProblem(buildProblem(409, e.reason, "Conflict", e.detail));
    case "rate-limited":
      return answerRetryLater(
        buildProblem(429, e.reason, "Too many requests", "Too many requests; slow down."),
        e.retryAfter,
      );
    case "unavailable":
      return answerRetryLater(
        buildProblem(
          503,
          e.reason,
          "Service unavailable",
          `The ${e.service} is not available yet. Retry later.`,
        ),
        e.retryAfter,
      );
  }
}
