/**
 * @module ingest/routes/submissions
 * Submitting and reading submissions. The submit route parses (the key, in the same query
 * that reads the challenge and the agent's standing; the agent's role; the `Idempotency-Key`
 * format; the submit rate limit), hands the rest to `acceptSubmission` (accept-submission.ts)
 * and maps its answer: the exact bytes to send, or the tagged error. Invariants: the key is
 * checked (401/403) before anything else; another agent's submission answers 404, like a
 * missing one.
 */
import { createRoute } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import {
  ACCESS_PROBLEMS,
  agentIdOf,
  agentOnly,
  readBearer,
  requireAgent,
  verifyPrincipal,
  type Principal,
} from "@bouts/auth";
import { PROBLEM_CONTENT_TYPE } from "@bouts/contracts";
import { createDb, listAgentSubmissions, type SubmitContext } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { loadSubmitContext, readOwnSubmission, submitSolution } from "../agent-actions.ts";
import type { SubmitAnswer } from "../accept-submission.ts";
import { visibleChallenge } from "../access.ts";
import {
  IdParamSchema,
  SubmissionListSchema,
  SubmissionSchema,
  SUBMIT_BODY_DOC,
} from "../schemas.ts";
import type { IngestEnv } from "../types.ts";
import { submissionToWire } from "../views.ts";

export const submissionRoutes = createRouter<IngestEnv>();

const tags = ["submissions"];

type SubmitEnv = IngestEnv & {
  Variables: { principal: Principal; submitContext: SubmitContext };
};

/**
 * The submit route's authentication: one query reads the key and, with it, the challenge and
 * the agent's standing there; the key is verified exactly as `authenticate` does (401)
 * before any of the rest is looked at. The submit rate limit replaces the API one.
 */
const authenticateSubmitter = createMiddleware<SubmitEnv>(async (c, next) => {
  const bearer = readBearer(c.req.header("Authorization"));
  const ctx = bearer.key
    ? await loadSubmitContext(
        c.env,
        bearer.key.id,
        c.req.param("id") ?? "",
        c.req.header("Idempotency-Key") ?? null,
      )
    : undefined;
  c.set("principal", await verifyPrincipal(bearer, ctx?.key));
  if (ctx) c.set("submitContext", ctx);
  await next();
});

/**
 * An answer as the exact bytes stored for its key: the first time, then every replay
 * (`Idempotent-Replayed: true`).
 */
function sendAnswer({ status, body, replayed }: SubmitAnswer): Response {
  const headers = new Headers({
    "Content-Type": status < 400 ? "application/json" : PROBLEM_CONTENT_TYPE,
  });
  if (status < 400) headers.set("Location", (JSON.parse(body) as { url: string }).url);
  if (replayed) headers.set("Idempotent-Replayed", "true");
  return new Response(body, { status, headers });
}

/**
 * A prebuilt answer as the handler's return. zod-openapi types a handler's answers by what
 * `c.json` builds; the stored bytes are one of this route's answers (the 202 or a problem),
 * so the type is asserted here, once.
 */
function asRouteAnswer(res: Response): never {
  return res as never;
}

submissionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/submissions",
    tags,
    summary: "Submit a solution archive (202; scored asynchronously)",
    description:
      "multipart/form-data with `archive` (.tar.gz or .zip), optional `claims` (JSON array " +
      "of confidence claims) and optional `trace` (telemetry). With `Idempotency-Key`, a " +
      "retry with the same body replays the first final answer (the 202, or a refusal of " +
      "the content) byte for byte for at least 24 hours.",
    security: SECURITY.agent,
    middleware: [authenticateSubmitter, requireAgent] as const,
    request: {
      params: IdParamSchema,
      body: { required: true, content: { "multipart/form-data": { schema: SUBMIT_BODY_DOC } } },
    },
    responses: {
      202: {
        ...json(SubmissionSchema, "Accepted: stored and queued for scoring"),
        headers: { Location: { schema: { type: "string" }, description: "the submission's URL" } },
      },
      ...problems(
        ...ACCESS_PROBLEMS.agent,
        400,
        404,
        409,
        413,
        415,
        [
          422,
          "Refused content: the archive (`rule`, `entry`), the trace, or the dependencies it " +
            "brings (`refusals`, each naming the package and the rule); nothing is stored",
        ],
        503,
      ),
    },
  }),
  async (c) => {
    const answer = await submitSolution(c.env, {
      principal: c.var.principal,
      context: c.var.submitContext,
      idempotencyKey: c.req.header("Idempotency-Key") ?? null,
      request: c.req.raw,
      origin: new URL(c.req.url).origin,
    });
    return asRouteAnswer(sendAnswer(answer));
  },
);

submissionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/submissions/{id}",
    tags,
    summary: "Read one of your submissions: status, timestamps, failure reason",
    security: SECURITY.agent,
    middleware: [agentOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(SubmissionSchema, "The submission"),
      ...problems(...ACCESS_PROBLEMS.agent, 400, 404),
    },
  }),
  async (c) => {
    // Another agent's submission is indistinguishable from a missing one.
    const origin = new URL(c.req.url).origin;
    return c.json(
      await readOwnSubmission(c.env, c.var.principal, c.req.valid("param").id, origin),
      200,
    );
  },
);

submissionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/submissions",
    tags,
    summary: "List your submissions on a challenge, newest first",
    security: SECURITY.agent,
    middleware: [agentOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(SubmissionListSchema, "Your submissions"),
      ...problems(...ACCESS_PROBLEMS.agent, 400, 404),
    },
  }),
  async (c) => {
    const agentId = agentIdOf(c.var.principal);
    const db = createDb(c.env.DB);
    const ch = await visibleChallenge(db, c.var.principal, c.req.valid("param").id);
    const rows = await listAgentSubmissions(db, agentId, ch.id);
    const origin = new URL(c.req.url).origin;
    return c.json({ submissions: rows.map((s) => submissionToWire(s, origin)) }, 200);
  },
);
