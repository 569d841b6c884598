/**
 * @module ingest/routes/board-operations
 * Operator actions on a board. The rebuild reads a challenge's whole ranked history from D1 (the
 * score worker's `scores` table, less removed submissions) and replaces the Durable Object's
 * board with it; the removal takes a scored submission off its board, with a reason, and
 * rebuilds. Both reach the board only through its RPC (../rebuild.ts). Invariants: operator keys
 * only (`operatorOnly`), and only the operator that owns the challenge (another's is 404, as a
 * missing one); both are audited (`rebuilt`, `removed`) and never delete a score; rows the board
 * refuses answer 503 and leave the board untouched.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { OptionalReasonBodySchema, reasonBodySchema } from "@bouts/contracts";
import { createDb, findChallenge, findSubmission, removeSubmission } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { ownedChallenge, ownsChallenge } from "../access.ts";
import { fail } from "../errors.ts";
import { rebuildAudited } from "../rebuild.ts";
import { IdParamSchema } from "../schemas.ts";
import type { IngestEnv } from "../types.ts";

/** The board operations, to mount at /v1. */
export const boardOperationRoutes = createRouter<IngestEnv>();

const tags = ["leaderboard"];

/**
 * A submission id as the board's routes take it: up to 128 characters, as the leaderboard's
 * submission reads do (`IdParamSchema` stops at 64).
 */
const SubmissionParamSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/, "a submission id")
    .openapi({ param: { name: "id", in: "path" } }),
});

/** Optional body of a rebuild: why (kept in the audit trail). */
const RebuildRequestSchema = OptionalReasonBodySchema.openapi("LeaderboardRebuildRequest");

const RebuildResultSchema = z
  .object({
    challengeId: z.string(),
    agents: z.int(),
    results: z.int(),
    version: z.int(),
  })
  .openapi("LeaderboardRebuild");

/** Why an operator removes a submission from the board. */
const RemovalRequestSchema = reasonBodySchema(
  "why the submission is removed (kept in the audit trail and shown to its owner)",
).openapi("RemovalRequest");

/** An operator's removal, and the rebuilt board. */
const RemovalSchema = z
  .object({
    submissionId: z.string(),
    operatorId: z.string(),
    reason: z.string(),
    removedAt: z.iso.datetime(),
    board: z.object({ agents: z.int(), results: z.int(), version: z.int() }),
  })
  .openapi("Removal");

boardOperationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/leaderboard/rebuild",
    tags,
    summary: "Rebuild a challenge's leaderboard from the stored scores (operators; audited)",
    description:
      "Replaces the board with what D1 holds. Appends a public `rebuilt` event to the " +
      "challenge's history, with the optional `reason` as its cause.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: IdParamSchema,
      body: {
        required: false,
        content: { "application/json": { schema: RebuildRequestSchema } },
      },
    },
    responses: {
      200: json(RebuildResultSchema, "The rebuilt board"),
      ...problems(...ACCESS_PROBLEMS.operator, 400, 404, 415, 503),
    },
  }),
  async (c) => {
    const ch = await ownedChallenge(createDb(c.env.DB), c.var.principal, c.req.valid("param").id);
    const body = c.req.valid("json") as { reason?: string } | undefined;
    const done = await rebuildAudited(c.env, ch, {
      operatorId: operatorIdOf(c.var.principal),
      cause: body?.reason ?? "an operator rebuilt the board from the stored scores",
    });
    return c.json({ challengeId: ch.id, ...done }, 200);
  },
);

boardOperationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/submissions/{id}/removal",
    tags,
    summary: "Remove a scored submission from its board, with a reason (operators; audited)",
    description:
      "The score is kept (its history too) but no longer ranks; the board is rebuilt. The " +
      "owner reads the removal and its reason in the submission's history. A removal is final.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: SubmissionParamSchema,
      body: { required: true, content: { "application/json": { schema: RemovalRequestSchema } } },
    },
    responses: {
      200: json(RemovalSchema, "Removed, and the board rebuilt"),
      ...problems(...ACCESS_PROBLEMS.operator, 400, 404, 409, 415, 503),
    },
  }),
  async (c) => {
    const operatorId = operatorIdOf(c.var.principal);
    const db = createDb(c.env.DB);
    const submission = await findSubmission(db, c.req.valid("param").id);
    const ch = submission ? await findChallenge(db, submission.challengeId) : undefined;
    // Another operator's submission looks exactly like a missing one.
    if (!submission || !ch || !ownsChallenge(c.var.principal, ch))
      fail({ reason: "not-found", resource: "submission" });
    const { reason } = c.req.valid("json");
    const removed = await removeSubmission(db, {
      submissionId: submission.id,
      operatorId,
      reason,
      now: Date.now(),
      eventId: crypto.randomUUID(),
    });
    if (!removed.ok) {
      switch (removed.error.reason) {
        case "not-found":
          return fail({ reason: "not-found", resource: "submission" });
        case "not-scored":
          return fail({
            reason: "conflict",
            detail: `Only a scored submission can be removed from the board; it is ${removed.error.status}.`,
          });
        case "already-removed":
          return fail({
            reason: "conflict",
            detail: `The submission was already removed at ${new Date(removed.error.removal.removedAt).toISOString()}.`,
          });
      }
    }
    const board = await rebuildAudited(c.env, ch, {
      operatorId,
      cause: `an operator removed a submission from the board: ${reason}`,
      submissionId: submission.id,
    });
    return c.json(
      {
        submissionId: submission.id,
        operatorId,
        reason: removed.value.reason,
        removedAt: new Date(removed.value.removedAt).toISOString(),
        board,
      },
      200,
    );
  },
);
