/**
 * @module ingest/errors
 * Domain errors of the ingest API and their one mapping to HTTP (`application/problem+json`,
 * rendered by the edge kit's `onError`). Invariants: `toProblem` and
 * `isStoredUnderIdempotencyKey` are exhaustive switches with no default, so a new reason fails
 * to compile until it is mapped and its replay rule decided; nothing here leaks another
 * agent's data or a hidden test. Keys, roles and the API rate limit are @bouts/auth's.
 */
import {
  describeAdmissionRefusal,
  isAdmissionRefusal,
  describeArchiveRefusal,
  type AdmissionRefusal,
  type ArchiveRefusal,
} from "@bouts/archive";
import { buildProblem, type ProblemFieldError } from "@bouts/contracts";
import { describeDependencyRefusal, type DependencyRefusal } from "@bouts/dependencies";
import {
  answerProblem,
  answerRetryLater,
  answerSharedError,
  defineDomainHttpError,
} from "@bouts/edge";
import type { ProblemAnswer, SharedDomainError } from "@bouts/edge";

/** Every expected failure of the ingest API, tagged by `reason`. */
export type IngestError =
  | SharedDomainError
  | { reason: "unprocessable"; detail: string; errors?: ProblemFieldError[] }
  | { reason: "weight-rule"; rule: string; detail: string }
  | { reason: "conflict"; detail: string }
  | { reason: "length-required" }
  | { reason: "payload-too-large"; what: string; limit: number }
  | { reason: "unsupported-media-type"; detail: string }
  | {
      reason: "archive-refused";
      what: "archive" | "bundle";
      refusal: ArchiveRefusal | AdmissionRefusal;
    }
  | { reason: "dependencies-not-allowed"; file: string; detail: string }
  | { reason: "dependencies-refused"; refusals: DependencyRefusal[] }
  | { reason: "rate-limited"; retryAfter: number; detail: string }
  | { reason: "quota-exhausted"; retryAfter: number; detail: string }
  | { reason: "runner-time-exhausted"; retryAfter: number; detail: string }
  | { reason: "submissions-in-flight"; retryAfter: number; inFlight: number; limit: number }
  | { reason: "idempotency-mismatch" }
  | { reason: "idempotency-in-flight"; retryAfter: number }
  | { reason: "qa-failed"; detail: string; errors: ProblemFieldError[] }
  | { reason: "unavailable"; service: string; retryAfter: number }
  | { reason: "board-refused"; retryAfter: number };

const describeRefusal = (r: ArchiveRefusal | AdmissionRefusal): string =>
  isAdmissionRefusal(r) ? describeAdmissionRefusal(r) : describeArchiveRefusal(r);

/** A 429 whose detail is the refusal's own, with its `Retry-After`. */
const answerTooMany = (
  e: { reason: string; detail: string; retryAfter: number },
  title: string,
): ProblemAnswer => answerRetryLater(buildProblem(429, e.reason, title, e.detail), e.retryAfter);

// A hostile lock can break a rule per entry: the answer lists this many, and says how many more.
const MAX_LISTED_REFUSALS = 50;

/** 422 listing each refused dependency (package, rule, file, line, detail); the first in `detail`. */
function answerDependenciesRefused(refusals: readonly DependencyRefusal[]): ProblemAnswer {
  const listed = refusals.slice(0, MAX_LISTED_REFUSALS);
  const more = refusals.length - listed.length;
  const first = refusals[0];
  const others = refusals.length > 1 ? ` (and ${refusals.length - 1} more: see refusals)` : "";
  return answerProblem(
    buildProblem(
      422,
      "dependencies-refused",
      "Dependencies refused",
      `The submission's dependencies were refused: ${first ? describeDependencyRefusal(first) : "no reason"}${others}` +
        (more > 0 ? `; ${more} refusals are not listed` : ""),
      {
        rule: first?.rule ?? "dependencies-refused",
        refusals: listed.map((r) => ({
          package: r.package,
          rule: r.rule,
          file: r.file,
          ...(r.line !== undefined ? { line: r.line } : {}),
          detail: r.detail,
        })),
      },
    ),
  );
}

/** Thrown to abort a request with a domain error; the app's `onError` renders it. */
export const IngestHttpError = defineDomainHttpError<IngestError>("IngestHttpError", toProblem);

/** Aborts the current request with `error`. */
export const fail: (error: IngestError) => never = IngestHttpError.fail;

/** The problem document and extra headers for a domain error. */
export function toProblem(e: IngestError): ProblemAnswer {
  switch (e.reason) {
    case "not-found":
    case "invalid":
      return answerSharedError(e);
    case "unprocessable":
      return answerProblem(
        buildProblem(422, e.reason, "Unprocessable request", e.detail, {
          ...(e.errors ? { errors: e.errors } : {}),
        }),
      );
    case "weight-rule":
      return answerProblem(
        buildProblem(422, e.reason, "Custom weights break a rule", e.detail, { rule: e.rule }),
      );
    case "conflict":
      return answerProblem(buildProblem(409, e.reason, "Conflict", e.detail));
    case "length-required":
      return answerProblem(
        buildProblem(
          411,
          e.reason,
          "Length required",
          "Send a Content-Length header with the upload.",
        ),
      );
    case "payload-too-large":
      return answerProblem(
        buildProblem(
          413,
          e.reason,
          "Payload too large",
          `The ${e.what} exceeds the limit of ${e.limit} bytes.`,
        ),
      );
    case "archive-refused":
      return answerProblem(
        buildProblem(
          422,
          e.reason,
          e.what === "archive" ? "Archive refused" : "Bundle refused",
          `The ${e.what} was refused: ${describeRefusal(e.refusal)}`,
          {
            rule: e.refusal.reason,
            ...(e.refusal.entry !== undefined ? { entry: e.refusal.entry } : {}),
          },
        ),
      );
    case "dependencies-not-allowed":
      return answerProblem(
        buildProblem(
          422,
          e.reason,
          "Dependencies not allowed",
          `This challenge does not allow submissions to add dependencies: ${e.detail}. ` +
            "Remove them and use what the runtime provides.",
          {
            rule: e.reason,
            refusals: [{ package: null, rule: e.reason, file: e.file, detail: e.detail }],
          },
        ),
      );
    case "dependencies-refused":
      return answerDependenciesRefused(e.refusals);
    case "unsupported-media-type":
      return answerProblem(buildProblem(415, e.reason, "Unsupported media type", e.detail));
    case "rate-limited":
      return answerTooMany(e, "Too many requests");
    case "quota-exhausted":
      return answerTooMany(e, "Quota exhausted");
    case "runner-time-exhausted":
      return answerTooMany(e, "Runner time spent");
    case "submissions-in-flight":
      return answerRetryLater(
        buildProblem(
          429,
          e.reason,
          "Too many submissions in flight",
          `This agent has ${e.inFlight} submissions received, queued or running (all ` +
            `challenges, all of its keys); at most ${e.limit} may be in flight at once. ` +
            "Submit again once one of them is scored or failed.",
        ),
        e.retryAfter,
      );
    case "idempotency-mismatch":
      return answerProblem(
        buildProblem(
          422,
          e.reason,
          "Idempotency key reused",
          "This Idempotency-Key was already used with a different request body; use a new key.",
        ),
      );
    case "idempotency-in-flight":
      return answerRetryLater(
        buildProblem(
          409,
          e.reason,
          "Request in progress",
          "A request with this Idempotency-Key is still being processed; retry shortly.",
        ),
        e.retryAfter,
      );
    case "qa-failed":
      return answerProblem(
        buildProblem(422, e.reason, "Challenge QA failed", e.detail, { errors: e.errors }),
      );
    case "unavailable":
      return answerRetryLater(
        buildProblem(
          503,
          e.reason,
          "Service unavailable",
          `The ${e.service} is unavailable; nothing was stored. Retry later.`,
        ),
        e.retryAfter,
      );
    case "board-refused":
      // The board refused the rows D1 holds (a data fault, logged). Not "nothing was stored":
      // a promotion's batch is written before its rebuild, and a retry finishes it.
      return answerRetryLater(
        buildProblem(
          503,
          "unavailable",
          "Service unavailable",
          "The leaderboard rebuild is not available yet. Retry later.",
        ),
        e.retryAfter,
      );
  }
}

/**
 * Whether the answer to `e` is stored under the request's `Idempotency-Key` and replayed to
 * every retry (docs/api.md "Idempotency"). Stored: verdicts on the request's content, which
 * the same bytes always get again (a refused archive or dependencies, invalid claims or trace, a part over
 * its limit). Not stored: answers a retry may rightly change (401/403, every 429, 409, 5xx,
 * a missing or closed challenge) and the answers about the key itself.
 */
export function isStoredUnderIdempotencyKey(e: IngestError): boolean {
  switch (e.reason) {
    case "invalid":
    case "unprocessable":
    case "payload-too-large":
    case "unsupported-media-type":
    case "archive-refused":
    case "dependencies-not-allowed":
    case "dependencies-refused":
      return true;
    case "not-found":
    case "weight-rule":
    case "conflict":
    case "length-required":
    case "rate-limited":
    case "quota-exhausted":
    case "runner-time-exhausted":
    case "submissions-in-flight":
    case "idempotency-mismatch":
    case "idempotency-in-flight":
    case "qa-failed":
    case "unavailable":
    case "board-refused":
      return false;
  }
}
