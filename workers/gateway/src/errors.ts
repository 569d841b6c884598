/**
 * @module gateway-worker/errors
 * Domain errors of the metering gateway and their one mapping to `application/problem+json`
 * (rendered by the edge kit's `onError`). Invariants: `toProblem` is an exhaustive switch with no
 * default; a challenge an agent may not see answers the same 404 as a missing one; an upstream
 * that fails is a 502 or 504 of ours, with the upstream's own body never shown.
 */
import { buildProblem, type Problem } from "@bouts/contracts";
import {
  answerProblem,
  buildNotFound,
  defineDomainHttpError,
  type ProblemAnswer,
} from "@bouts/edge";

/** Every expected failure of the gateway route, tagged by `reason`. */
export type GatewayError =
  | { reason: "no-upstream" }
  | { reason: "not-found" }
  | { reason: "not-entered" }
  | { reason: "challenge-closed" }
  | { reason: "too-large"; limit: number }
  | { reason: "unsupported-media-type" }
  | { reason: "invalid-body"; problem: Problem }
  | { reason: "upstream-unreachable" }
  | { reason: "upstream-timeout"; timeoutMs: number }
  | { reason: "upstream-oversize"; limit: number }
  | { reason: "upstream-interrupted" };

/** Thrown to abort a request with a domain error; the app's `onError` renders it. */
export const GatewayHttpError = defineDomainHttpError<GatewayError>(
  "GatewayHttpError",
  (e): ProblemAnswer =>
    e.reason === "no-upstream"
      ? { problem: toProblem(e), headers: { "Retry-After": "60" } }
      : answerProblem(toProblem(e)),
);

/** Aborts the current request with `error`. */
export const fail: (error: GatewayError) => never = GatewayHttpError.fail;

/** The problem document for a domain error. */
export function toProblem(e: GatewayError): Problem {
  switch (e.reason) {
    case "no-upstream":
      return buildProblem(
        503,
        e.reason,
        "Gateway unavailable",
        "The gateway has no upstream: this deployment meters no model calls (GATEWAY_UPSTREAM_URL is unset).",
      );
    case "not-found":
      return buildNotFound("challenge");
    case "not-entered":
      return buildProblem(
        403,
        e.reason,
        "Not entered",
        "Enter the challenge (POST /v1/challenges/{id}/entries) before calling models through its gateway.",
      );
    case "challenge-closed":
      return buildProblem(
        409,
        e.reason,
        "Challenge closed",
        "The challenge is closed: its gateway takes no more model calls.",
      );
    case "too-large":
      return buildProblem(
        413,
        e.reason,
        "Request too large",
        `A model call's body may be at most ${e.limit} bytes.`,
      );
    case "unsupported-media-type":
      return buildProblem(
        415,
        e.reason,
        "Unsupported media type",
        "Send the chat completion as application/json.",
      );
    case "invalid-body":
      return e.problem;
    case "upstream-unreachable":
      return buildProblem(
        502,
        e.reason,
        "Upstream unreachable",
        "The model provider could not be reached; the call was recorded without usage. Try again.",
      );
    case "upstream-timeout":
      return buildProblem(
        504,
        e.reason,
        "Upstream timed out",
        `The model provider did not answer within ${e.timeoutMs} ms; the call was recorded without usage.`,
      );
    case "upstream-oversize":
      return buildProblem(
        502,
        e.reason,
        "Upstream answer too large",
        `The model provider's answer was over ${e.limit} bytes; it was not passed on, and the call was recorded without usage.`,
      );
    case "upstream-interrupted":
      return buildProblem(
        502,
        e.reason,
        "Upstream answer cut off",
        "The model provider's answer stopped before its end; the call was recorded without usage.",
      );
  }
}
