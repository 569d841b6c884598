/**
 * @module auth/errors
 * The failures of authentication, authorization and rate limiting, and their one mapping to
 * problem+json. Invariants: `toProblem` is an exhaustive switch with no default; a 401 always
 * carries `WWW-Authenticate` and a 429 always carries `Retry-After`; a detail never says
 * whether a key id exists.
 */
import { buildProblem } from "@bouts/contracts";
import { HttpError, type ProblemAnswer } from "@bouts/edge";

/** Every expected failure of the auth layer, tagged by `reason`. */
export type AuthError =
  | { reason: "unauthenticated"; detail: string }
  | { reason: "forbidden"; detail: string }
  | { reason: "rate-limited"; retryAfter: number; detail: string };

/** The problem document and headers of an auth failure. */
export function toProblem(e: AuthError): ProblemAnswer {
  switch (e.reason) {
    case "unauthenticated":
      return {
        problem: buildProblem(401, e.reason, "Unauthorized", e.detail),
        headers: { "WWW-Authenticate": 'Bearer realm="bouts"' },
      };
    case "forbidden":
      return { problem: buildProblem(403, e.reason, "Forbidden", e.detail), headers: {} };
    case "rate-limited":
      return {
        problem: buildProblem(429, e.reason, "Too many requests", e.detail),
        headers: { "Retry-After": String(e.retryAfter) },
      };
  }
}

/** Thrown to abort a request with an auth failure; the app's `onError` renders it. */
export class AuthHttpError extends HttpError {
  override readonly name = "AuthHttpError";
  readonly error: AuthError;
  constructor(error: AuthError) {
    super(toProblem(error));
    this.error = error;
  }
}

/** Aborts the current request with `error`. */
export function fail(error: AuthError): never {
  throw new AuthHttpError(error);
}
