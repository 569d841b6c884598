/**
 * @module webhooks-worker/errors
 * Domain errors of the webhook routes and their one mapping to `application/problem+json`
 * (rendered by the edge kit's `onError`). Invariants: `toProblem` is an exhaustive switch
 * with no default; another agent's endpoint and a missing one produce the same 404; a refusal
 * that ends by itself (a pending delivery, a spent test quota) carries `Retry-After`.
 */
import { buildProblem, type Problem } from "@bouts/contracts";
import { answerProblem, answerRetryLater, buildNotFound, defineDomainHttpError } from "@bouts/edge";
import type { ProblemAnswer } from "@bouts/edge";
import type { TargetUrlRule } from "@bouts/webhooks";

/** Every expected failure of the webhook routes, tagged by `reason`. */
export type WebhooksError =
  | { reason: "not-found"; resource: "webhook endpoint" | "delivery" }
  | { reason: "invalid-target"; rule: TargetUrlRule; detail: string }
  | { reason: "endpoint-disabled"; detail: string }
  | { reason: "endpoint-limit"; limit: number }
  | { reason: "delivery-pending"; retryAfterSeconds: number }
  | {
      reason: "test-quota";
      scope: "endpoint" | "agent";
      limit: number;
      windowSeconds: number;
      retryAfterSeconds: number;
    };

/** Thrown to abort a request with a domain error; the app's `onError` renders it. */
export const WebhooksHttpError = defineDomainHttpError<WebhooksError>(
  "WebhooksHttpError",
  toHttpAnswer,
);

/** Aborts the current request with `error`. */
export const fail: (error: WebhooksError) => never = WebhooksHttpError.fail;

/** The problem document and headers for a domain error (`Retry-After` when it will pass). */
export function toHttpAnswer(e: WebhooksError): ProblemAnswer {
  const retryAfter = resolveRetryAfter(e);
  return retryAfter === null
    ? answerProblem(toProblem(e))
    : answerRetryLater(toProblem(e), Math.max(1, retryAfter));
}

/** The problem document for a domain error. */
export function toProblem(e: WebhooksError): Problem {
  switch (e.reason) {
    case "not-found":
      return buildNotFound(e.resource);
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
    case "delivery-pending":
      return buildProblem(
        409,
        e.reason,
        "Delivery in progress",
        "This message is still being delivered (queued or retrying); redeliver it once it has settled.",
      );
    case "test-quota":
      return buildProblem(
        429,
        e.reason,
        "Test quota spent",
        `At most ${e.limit} test events per ${e.scope} every ${e.windowSeconds / 60} minutes.`,
      );
  }
}

/** Seconds after which a refused request may succeed (`Retry-After`); null when it will not. */
export function resolveRetryAfter(e: WebhooksError): number | null {
  switch (e.reason) {
    case "delivery-pending":
    case "test-quota":
      return e.retryAfterSeconds;
    case "not-found":
    case "invalid-target":
    case "endpoint-disabled":
    case "endpoint-limit":
      return null;
  }
}
