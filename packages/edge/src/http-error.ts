/**
 * @module edge/http-error
 * The one error class that aborts a request, and the one way a problem document becomes a
 * response. Invariants: every error answer is `application/problem+json` (RFC 9457) with the
 * problem's own status; a role's domain error becomes an `HttpError` only through that role's
 * exhaustive mapper, so the class carries an already-mapped problem and never a raw reason.
 */
import { PROBLEM_CONTENT_TYPE, type Problem } from "@bouts/contracts";

/** A problem document and the headers that go with it (`Retry-After`, `WWW-Authenticate` …). */
export interface ProblemAnswer {
  problem: Problem;
  headers: Record<string, string>;
}

/**
 * Thrown to abort a request with a problem; `handleError` renders it. Roles subclass it to
 * keep their tagged domain error on the instance (`IngestHttpError.error` …).
 * @example throw new HttpError({ problem: buildProblem(409, "conflict", "Conflict", "…"), headers: {} })
 */
export class HttpError extends Error {
  override readonly name: string = "HttpError";
  readonly problem: Problem;
  readonly headers: Readonly<Record<string, string>>;
  constructor(answer: ProblemAnswer, options?: ErrorOptions) {
    super(answer.problem.detail, options);
    this.problem = answer.problem;
    this.headers = answer.headers;
  }
}

/** Renders a problem document as a response, with any extra headers. */
export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "Content-Type": PROBLEM_CONTENT_TYPE, ...headers },
  });
}
