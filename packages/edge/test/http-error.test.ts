import { describe, expect, it } from "vitest";
import { buildProblem } from "@bouts/contracts";
import { handleError } from "../src/app.ts";
import {
  answerProblem,
  answerRetryLater,
  answerSharedError,
  buildNotFound,
  defineDomainHttpError,
  HttpError,
  type ProblemAnswer,
} from "../src/http-error.ts";

type ThingError = { reason: "not-found"; resource: string } | { reason: "busy"; seconds: number };

const toAnswer = (e: ThingError): ProblemAnswer =>
  e.reason === "not-found"
    ? answerProblem(buildNotFound(e.resource))
    : answerRetryLater(buildProblem(429, e.reason, "Busy", "Try later."), e.seconds);

const ThingHttpError = defineDomainHttpError<ThingError>("ThingHttpError", toAnswer);

describe("a role's domain error class", () => {
  it("is an HttpError named as the role names it, keeping the tagged error", () => {
    const error: ThingError = { reason: "not-found", resource: "thing" };
    const e = new ThingHttpError(error);
    expect(e).toBeInstanceOf(HttpError);
    expect(e).toBeInstanceOf(ThingHttpError);
    expect(e.name).toBe("ThingHttpError");
    expect(e.error).toBe(error);
    expect(e.message).toBe("No such thing.");
  });

  it("renders through the one onError with the mapped status, problem and headers", async () => {
    const res = handleError(new ThingHttpError({ reason: "busy", seconds: 7 }));
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("7");
    expect(await res.json()).toEqual({
      type: "urn:bouts:problem:busy",
      title: "Busy",
      status: 429,
      detail: "Try later.",
    });
  });

  it("answers a missing resource with the shared 404 and no extra headers", () => {
    expect(answerProblem(buildNotFound("thing"))).toEqual({
      problem: {
        type: "urn:bouts:problem:not-found",
        title: "Not found",
        status: 404,
        detail: "No such thing.",
      },
      headers: {},
    });
  });

  it("answers the shared failures the same way in every role", () => {
    expect(answerSharedError({ reason: "not-found", resource: "thing" })).toEqual(
      answerProblem(buildNotFound("thing")),
    );
    const problem = buildProblem(400, "invalid-request", "Invalid request", "Bad field.");
    expect(answerSharedError({ reason: "invalid", problem })).toEqual({ problem, headers: {} });
  });
});
