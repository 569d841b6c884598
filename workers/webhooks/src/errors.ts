/**
 * @module webhooks-worker/errors
 * Domain errors of the webhook routes and their one mapping to `application/problem+json`.
 * Invariants: `toProblem` is an exhaustive switch with no default; another agent's endpoint
 * and a missing one produce the same 404.
 */
import { buildProblem, PROBLEM_CONTENT_TYPE, type Problem } from "@bouts/contracts";
import type { TargetUrlRule } from "@bouts/webhooks";

/** Every expected failure of the webhook routes, tagged by `reason`. */
export type WebhooksError =
  | { reason: "not-found"; resource: "webhook endpoint" | "delivery" }
  | { reason: "invalid-target"; rule: TargetUrlRule; detail: string }
  | { reason: "endpoint-disabled"; detail: string }
  | { reason: "endpoint-limit"; limit: number };

/** Thrown to abort a request with a domain error; `app.onError` renders it. */
export class WebhooksHttpError extends Error {
  override readonly name = "WebhooksHttpError";
  readonly error: WebhooksError;
  constructor(error: WebhooksError) {
    super(error.reason);
    this.error = error;
  }
}

/** Aborts the current request with `error`. */
export function fail(error: WebhooksError): never {
  throw new WebhooksHttpError(error);
}

/** The problem document for a domain error. */
export function toProblem(e: WebhooksError): Problem {
  switch (e.reason) {
    case "not-found":
      return buildProblem(404, e.reason, "Not found", `No such ${e.resource}.`);
    case "invalid-target":
      return buildProblem(422, e.reason, "Target URL refused", e.detail, { rule: e.rule });
    case "endpoint-disabled":
      return buildProblem(409, e.reason, "Endpoint disabled", e.detail);
    case "endpoint-limit":
      return buildProblem(
        409,
        e.reason,
        "Too many endpoints",
        `An agent may register at most ${e.limit} webhook endpoints; delete one first.`,
      );
  }
}

/** Renders a problem document as a response. */
export function problemResponse(problem: Problem): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "Content-Type": PROBLEM_CONTENT_TYPE },
  });
}
