/**
 * @module edge/http-error
 * The one error class that aborts a request, and the one way a problem document becomes a
 * response. Invariants: every error answer is `application/problem+json` (RFC 9457) with the
 * problem's own status; a role's domain error becomes an `HttpError` only through that role's
 * exhaustive mapper, so the class carries an already-mapped problem and never a raw reason.
 */
import { buildProblem, PROBLEM_CONTENT_TYPE, type Problem } from "@bouts/contracts";

/** A problem document and the headers that go with it (`Retry-After`, `WWW-Authenticate` …). */
export interface ProblemAnswer {
  problem: Problem;
  headers: Record<string, string>;
}

/**
 * Thrown to abort a request with a problem; `handleError` renders it. Roles subclass it with
 * `defineDomainHttpError` to keep their tagged domain error on the instance (`.error`).
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

/** A problem answer with the given extra headers (none by default). */
export function answerProblem(
  problem: Problem,
  headers: Record<string, string> = {},
): ProblemAnswer {
  return { problem, headers };
}

/** A problem answer for a refusal that passes by itself after `seconds` (`Retry-After`). */
export function answerRetryLater(problem: Problem, seconds: number): ProblemAnswer {
  return { problem, headers: { "Retry-After": String(seconds) } };
}

/** The 404 every role gives for a missing resource: "No such <resource>." */
export function buildNotFound(resource: string): Problem {
  return buildProblem(404, "not-found", "Not found", `No such ${resource}.`);
}

/** The failures every role's domain error shares, with the one answer each gets. */
export type SharedDomainError =
  { reason: "not-found"; resource: string } | { reason: "invalid"; problem: Problem };

/** The answer to a shared failure: the standard 404, or the request's own problem as it stands. */
export function answerSharedError(e: SharedDomainError): ProblemAnswer {
  return answerProblem(e.reason === "not-found" ? buildNotFound(e.resource) : e.problem);
}

/**
 * A role's `HttpError` subclass, named `name`: built from the role's tagged domain error through
 * its exhaustive mapper, it keeps that error on the instance (`.error`) for callers that match it.
 * @example export const IngestHttpError = defineDomainHttpError("IngestHttpError", toProblem)
 */
export function defineDomainHttpError<E>(name: string, toAnswer: (error: E) => ProblemAnswer) {
  return class DomainHttpError extends HttpError {
    /** Aborts the current request with `error` (a role exports it as its `fail`). */
    static readonly fail = (error: E): never => {
      throw new DomainHttpError(error);
    };
    override readonly name: string = name;
    readonly error: E;
    constructor(error: E) {
      super(toAnswer(error));
      this.error = error;
    }
  };
}

/** Renders a problem document as a response, with any extra headers. */
export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "Content-Type": PROBLEM_CONTENT_TYPE, ...headers },
  });
}
