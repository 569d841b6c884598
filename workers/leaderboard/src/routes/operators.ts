/**
 * @module leaderboard/routes/operators
 * Operator actions on a board. The rebuild reads a challenge's whole ranked history from D1 (the
 * score worker's `scores` table, less removed submissions) and replaces the Durable Object's
 * board with it; the removal takes a scored submission off its board, with a reason, and
 * rebuilds. Invariants: operator keys only (`operatorOnly`), and only the operator that owns the
 * challenge (another's is 404); both are audited (`rebuilt`, `removed`: audit.ts) and never
 * delete a score; rows the board refuses answer 503 and leave the board untouched.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { createDb, findChallenge, findSubmission, removeSubmission } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { rebuildAudited } from "../audit.ts";
import { fail } from "../errors.ts";
import {
  ChallengeParamSchema,
  RebuildRequestSchema,
  RemovalRequestSchema,
  RemovalSchema,
  SubmissionParamSchema,
} from "../schemas.ts";
import type { LeaderboardEnv } from "../types.ts";

/** The operator routes, to mount at /v1. */
export const operatorRoutes = createRouter<LeaderboardEnv>();

const RebuildResultSchema = z
  .object({
    challengeId: z.string(),
    agents: z.int(),
    results: z.int(),
    version: z.int(),
  })
  .openapi("LeaderboardRebuild");

operatorRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/leaderboard/rebuild",
    tags: ["leaderboard"],
    summary: "Rebuild a challenge's leaderboard from the stored scores (operators; audited)",
    description:
      "Replaces the board with what D1 holds. Appends a public `rebuilt` event to the " +
      "challenge's history, with the optional `reason` as its cause.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: ChallengeParamSchema,
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
    const operatorId = operatorIdOf(c.var.principal);
    const ch = await findChallenge(createDb(c.env.DB), c.req.valid("param").id);
    if (!ch || ch.createdBy !== operatorId) {
      fail({ reason: "not-found", resource: "challenge" });
    }
    const body = c.req.valid("json") as { reason?: string } | undefined;
    const done = await rebuildAudited(c.env, ch, {
      operatorId,
      cause: body?.reason ?? "an operator rebuilt the board from the stored scores",
    });
    return c.json({ challengeId: ch.id, ...done }, 200);
  },
);

operatorRoutes.openapi(
  createRoute({
    method: "post",
    path: "/submissions/{id}/removal",
    tags: ["leaderboard"],
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
    if (!submission || !ch || ch.createdBy !== operatorId)
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
