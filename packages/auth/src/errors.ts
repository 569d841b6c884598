/**
 * @module auth/errors
 * The failures of authentication, authorization and rate limiting, and their one mapping to
 * problem+json. Invariants: `toProblem` is an exhaustive switch with no default; a 401 always
 * carries `WWW-Authenticate` and a 429 always carries `Retry-After`; a detail never says
 * whether a key id exists.
 */
import { buildProblem } from "@bouts/contracts";
import { answerProblem, answerRetryLater, defineDomainHttpError } from "@bouts/edge";
import type { ProblemAnswer } from "@bouts/edge";

/** Every expected failure of the auth layer, tagged by `reason`. */
export type AuthError =
  | { reason: "unauthenticated"; detail: string }
  | { reason: "forbidden"; detail: string }
  | { reason: "rate-limited"; retryAfter: number; detail: string };

/** The problem document and headers of an auth failure. */
export function toProblem(e: AuthError): ProblemAnswer {
  switch (e.reason) {
    case "unauthenticated":
      return answerProblem(buildProblem(401, e.reason, "Unauthorized", e.detail), {
        "WWW-Authenticate": 'Bearer realm="bouts"',
      });
    case "forbidden":
      return answerProblem(buildProblem(403, e.reason, "Forbidden", e.detail));
    case "rate-limited":
      return answerRetryLater(
        buildProblem(429, e.reason, "Too many requests", e.detail),
        e.retryAfter,
      );
  }
}

/** Thrown to abort a request with an auth failure; the app's `onError` renders it. */
export const AuthHttpError = defineDomainHttpError<AuthError>("AuthHttpError", toProblem);

/** Aborts the current request with `error`. */
export const fail: (error: AuthError) => never = AuthHttpError.fail;
