/**
 * @module ingest/routes/operations
 * Operator actions on submissions. `POST /v1/submissions/{id}/rejudge` re-queues a submission
 * that failed on the platform's side (`failureCode: infrastructure`). Invariants: only the
 * operator that owns the submission's challenge may (anyone else gets the 404 of a missing
 * submission); only an infrastructure failure is re-judged (409 otherwise), so an agent's own
 * failure can never be retried into a score; every re-judgement is recorded in D1 (who, when,
 * why, and the failure it replaced) in the same batch that re-queues the row.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { reasonBodySchema, submissionMessage } from "@bouts/contracts";
import { createDb, findChallenge, findSubmission, rejudgeSubmission } from "@bouts/db";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { ownsChallenge } from "../access.ts";
import { fail } from "../errors.ts";
import type { IngestEnv } from "../types.ts";
import { IdParamSchema, SubmissionSchema } from "../schemas.ts";
import { submissionToWire } from "../views.ts";

export const operationRoutes = createRouter<IngestEnv>();

const RejudgeBodySchema = reasonBodySchema(
  "why the submission is re-judged (kept in the audit log)",
).openapi("RejudgeRequest");

const RejudgeSchema = z
  .object({
    submission: SubmissionSchema,
    rejudge: z.object({
      id: z.string(),
      operatorId: z.string(),
      reason: z.string(),
      requestedAt: z.iso.datetime(),
    }),
  })
  .openapi("Rejudge");

operationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/submissions/{id}/rejudge",
    tags: ["submissions"],
    summary: "Re-queue a submission that failed on the platform's side (operator; audited)",
    description:
      "Only for `failureCode: infrastructure`, and only by the operator that owns the challenge. The submission goes back to `queued`; who, when and why is recorded.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: IdParamSchema,
      body: { required: true, content: { "application/json": { schema: RejudgeBodySchema } } },
    },
    responses: {
      202: json(RejudgeSchema, "Re-queued"),
      ...problems(...ACCESS_PROBLEMS.operator, 400, 404, 409, 415),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const operatorId = operatorIdOf(c.var.principal);
    const submission = await findSubmission(db, c.req.valid("param").id);
    const challenge = submission ? await findChallenge(db, submission.challengeId) : undefined;
    if (!submission || !challenge || !ownsChallenge(c.var.principal, challenge))
      fail({ reason: "not-found", resource: "submission" });
    const { reason } = c.req.valid("json");
    const now = Date.now();
    const auditId = crypto.randomUUID();
    const done = await rejudgeSubmission(db, {
      id: auditId,
      submissionId: submission.id,
      operatorId,
      reason,
      now,
    });
    if (!done.ok) {
      switch (done.error.reason) {
        case "not-found":
          return fail({ reason: "not-found", resource: "submission" });
        case "not-rejudgeable":
          return fail({
            reason: "conflict",
            detail: `Only a submission that failed on the platform's side (failureCode infrastructure) can be re-judged; it is ${done.error.status}${submission.failureCode ? ` (${submission.failureCode})` : ""}.`,
          });
      }
    }
    const message = submissionMessage({
      submissionId: submission.id,
      challengeId: submission.challengeId,
      agentId: submission.agentId,
    });
    try {
      await c.env.SUBMISSIONS.send(message, { contentType: "json" });
    } catch (err) {
      // The row is queued and audited: the scoring reconciler re-sends a lost message.
      console.error("rejudge: enqueue failed; the reconciler will re-queue it", err);
    }
    return c.json(
      {
        submission: submissionToWire(done.value.submission, new URL(c.req.url).origin),
        rejudge: { id: auditId, operatorId, reason, requestedAt: new Date(now).toISOString() },
      },
      202,
    );
  },
);
