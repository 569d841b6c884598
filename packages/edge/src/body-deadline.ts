/**
 * @module edge/body-deadline
 * A request body that stops arriving is answered, not waited on: a request whose
 * `Content-Length` promises more bytes than the client sends would otherwise hold its handler
 * (and the client) until the client gives up. The middleware hands the routes a body that
 * fails once no byte has arrived for `idleMs`, or the whole body has taken longer than
 * `totalMs`; the request is then answered 408 problem+json with `Connection: close`, whatever
 * the route was doing with the body (a stream read, `formData()`, the JSON validator).
 * Invariants: a request without a body is untouched, and so is a GET or HEAD that carries one
 * (no route reads it, and a Request of those methods cannot be rebuilt with a body); a body that keeps arriving within both
 * bounds reaches the route byte for byte; the timers end with the body.
 */
import type { MiddlewareHandler } from "hono";
import { buildProblem, PROBLEM_CONTENT_TYPE } from "@bouts/contracts";
import { problemResponse } from "./http-error.ts";
import { PROBLEM_STATUS_TEXT } from "./openapi.ts";

/** How long a body may pause, and take in all (docs/api.md "Request bodies"). */
export interface BodyDeadline {
  idleMs: number;
  totalMs: number;
}

/** The platform's bounds: ten seconds without a byte; five minutes for a whole body. */
export const DEFAULT_BODY_DEADLINE: BodyDeadline = { idleMs: 10_000, totalMs: 300_000 };

/** The error the wrapped body fails with once a bound passes; it renders as the 408. */
export class BodyTimeoutError extends Error {
  readonly bound: "idle" | "total";
  constructor(bound: "idle" | "total", deadline: BodyDeadline) {
    super(
      bound === "idle"
        ? `No byte of the request body arrived for ${deadline.idleMs / 1000} s: the body is ` +
            "shorter than its Content-Length, or the client stopped sending. Send the whole body."
        : `The request body took longer than ${deadline.totalMs / 1000} s to arrive.`,
    );
    this.name = "BodyTimeoutError";
    this.bound = bound;
  }
}

/** The 408 answer for a body that did not arrive in time. */
export function bodyTimeoutResponse(error: BodyTimeoutError): Response {
  return problemResponse(
    buildProblem(408, "request-timeout", "Request body timed out", error.message),
    { Connection: "close" },
  );
}

/**
 * `body` passed through unchanged, except that it fails with a `BodyTimeoutError` (and
 * `onTimeout` is called) once a bound of `deadline` passes before its end.
 */
export function withBodyDeadline(
  body: ReadableStream<Uint8Array>,
  deadline: BodyDeadline,
  onTimeout: (error: BodyTimeoutError) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let idle: ReturnType<typeof setTimeout> | undefined;
  let total: ReturnType<typeof setTimeout> | undefined;
  let failed: BodyTimeoutError | null = null;
  let wake: ((e: BodyTimeoutError) => void) | null = null;
  const stop = () => {
    clearTimeout(idle);
    clearTimeout(total);
  };
  const fail = (bound: "idle" | "total") => {
    if (failed) return;
    failed = new BodyTimeoutError(bound, deadline);
    stop();
    onTimeout(failed);
    wake?.(failed);
    reader.cancel(failed).catch(() => undefined);
  };
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => fail("idle"), deadline.idleMs);
  };
  return new ReadableStream<Uint8Array>({
    start() {
      total = setTimeout(() => fail("total"), deadline.totalMs);
      armIdle();
    },
    async pull(controller) {
      if (failed) throw failed;
      const timedOut = new Promise<never>((_, reject) => {
        wake = reject;
      });
      try {
        const { done, value } = await Promise.race([reader.read(), timedOut]);
        if (done) {
          stop();
          controller.close();
          return;
        }
        armIdle();
        controller.enqueue(value);
      } finally {
        wake = null;
      }
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
}

/**
 * The middleware: every request with a body gets the deadline; a request whose body timed out
 * is answered 408, replacing whatever the route answered or threw about its broken body.
 */
export function bodyDeadline(deadline: BodyDeadline = DEFAULT_BODY_DEADLINE): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body || raw.method === "GET" || raw.method === "HEAD") return next();
    let timedOut: BodyTimeoutError | null = null;
    const body = withBodyDeadline(raw.body, deadline, (e) => {
      timedOut = e;
    });
    c.req.raw = new Request(raw, { body, duplex: "half" } as RequestInit);
    await next();
    if (timedOut) {
      // Not merged with the route's answer: none of its headers describe this one.
      c.res = undefined;
      c.res = bodyTimeoutResponse(timedOut);
    }
  };
}

/**
 * Declares the 408 on every operation of `document` that takes a request body: the middleware
 * answers it on any such route, so the contract says so once here rather than on each route.
 */
export function declareBodyTimeout<T extends { paths?: object }>(document: T): T {
  for (const item of Object.values(document.paths ?? {}) as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    for (const op of Object.values(item) as unknown[]) {
      if (typeof op !== "object" || op === null || !("requestBody" in op)) continue;
      if (!("responses" in op) || typeof op.responses !== "object" || op.responses === null) {
        continue;
      }
      const responses = op.responses as Record<string, unknown>;
      if ("408" in responses) continue;
      responses["408"] = {
        description: PROBLEM_STATUS_TEXT[408],
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
      };
    }
  }
  return document;
}
