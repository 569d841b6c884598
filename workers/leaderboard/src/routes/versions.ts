/**
 * @module leaderboard/routes/versions
 * A candidate challenge version's diff report, promotion and discard (docs/design.md §30;
 * logic in ../versions.ts). The upload is ingest's (`POST /v1/challenges/{id}/versions`).
 * Invariants: operator keys of the owning operator only (another's challenge is 404): the report
 * names hidden tests, which no agent may read; promotion and discard need a reason, kept in the
 * audit trail.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { reasonBodySchema } from "@bouts/contracts";
import { createDb, findChallenge, type ChallengeRow, type Db } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { fail } from "../errors.ts";
import { ChallengeParamSchema } from "../schemas.ts";
import type { LeaderboardEnv } from "../types.ts";
import { buildDiffReport, discard, ownedVersion, promote } from "../versions.ts";

/** The version routes, to mount at /v1. */
export const versionRoutes = createRouter<LeaderboardEnv>();

const tags = ["challenges"];
const OPERATOR = ACCESS_PROBLEMS.operator;

const VersionParamSchema = ChallengeParamSchema.extend({
  version: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .openapi({ param: { name: "version", in: "path" }, example: 2 }),
});

const PlaceSchema = z
  .object({ rank: z.int(), submissionId: z.string(), score: z.int(), unrounded: z.string() })
  .nullable();
const ScoreSchema = z.object({ score: z.int(), unrounded: z.string() }).nullable();

const RescoredSubmissionSchema = z.object({
  submissionId: z.string(),
  state: z.enum(["queued", "running", "scored", "failed"]),
  before: ScoreSchema.describe("the live score"),
  after: ScoreSchema.describe("the score on the candidate; null until scored"),
  error: z.string().nullable().describe("why the rescore failed"),
  changedTests: z
    .array(
      z.object({
        suite: z.enum(["static", "adversarial"]),
        id: z.string(),
        name: z.string(),
        bucket: z.string().describe("the category, or origin:severity"),
        before: z.string().nullable().describe("the verdict on the live version; null: new test"),
        after: z.string().nullable().describe("the verdict on the candidate; null: removed test"),
      }),
    )
    .describe("every test whose verdict differs, hidden tests included (operators only)"),
});

const DiffReportSchema = z
  .object({
    challengeId: z.string(),
    version: z.int(),
    baseVersion: z.int(),
    liveVersion: z.int(),
    state: z.enum(["qa-failed", "rescoring", "ready", "promoted", "discarded"]),
    note: z.string(),
    rescores: z.object({
      total: z.int(),
      queued: z.int(),
      running: z.int(),
      scored: z.int(),
      failed: z.int(),
    }),
    agents: z
      .array(
        z.object({
          agentId: z.string(),
          name: z.string(),
          before: PlaceSchema.describe("the agent's place on the base version's board"),
          after: PlaceSchema.describe("its place on the board this version publishes"),
          rankChange: z.int().nullable().describe("before.rank − after.rank: positive moved up"),
          submissions: z.array(RescoredSubmissionSchema),
        }),
      )
      .describe("every agent, in the order of the board this version publishes"),
    baselines: z.array(
      z.object({
        agentId: z.string(),
        label: z.string(),
        submissions: z.array(RescoredSubmissionSchema),
      }),
    ),
  })
  .openapi("VersionDiffReport");

const DecisionBodySchema = reasonBodySchema(
  "why (kept in the audit trail of the challenge and of each rescored submission)",
).openapi("VersionDecisionRequest");

/** The owner operator's challenge, or 404. */
async function ownChallenge(db: Db, id: string, operatorId: string): Promise<ChallengeRow> {
  const ch = await findChallenge(db, id);
  if (!ch || ch.createdBy !== operatorId) fail({ reason: "not-found", resource: "challenge" });
  return ch;
}

versionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/versions/{version}/diff",
    tags,
    summary:
      "The diff report of a candidate version: old and new score, rank and verdicts (operators)",
    description:
      "Per agent, its place on the live board and on the board the version would publish; " +
      "per rescored submission, its old and new score and every test whose verdict changed.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: VersionParamSchema },
    responses: {
      200: json(DiffReportSchema, "The report"),
      ...problems(...OPERATOR, 400, 404),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const { id, version } = c.req.valid("param");
    const ch = await ownChallenge(db, id, operatorIdOf(c.var.principal));
    const v = await ownedVersion(db, ch, version);
    return c.json(await buildDiffReport(db, ch, v), 200);
  },
);

versionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/versions/{version}/promote",
    tags,
    summary:
      "Promote a rescored version: swap the version, the scores and the board (operators; audited)",
    description:
      "Only a `ready` version whose every rescore scored. One D1 batch replaces the rescored " +
      "scores and the live bundle; the board is rebuilt from it in one step, and each affected " +
      "agent gets `submission.rescored`. Repeating it on a promoted version finishes both.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: VersionParamSchema,
      body: { ...json(DecisionBodySchema), required: true },
    },
    responses: {
      200: json(DiffReportSchema, "The report of the promoted version"),
      ...problems(...OPERATOR, 400, 404, 409, 415, 503),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const { id, version } = c.req.valid("param");
    const operatorId = operatorIdOf(c.var.principal);
    const ch = await ownChallenge(db, id, operatorId);
    const v = await ownedVersion(db, ch, version);
    const report = await promote(c.env, ch, v, { operatorId, reason: c.req.valid("json").reason });
    return c.json(report, 200);
  },
);

versionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/versions/{version}/discard",
    tags,
    summary: "Discard a candidate version; the live one stays (operators; audited)",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: VersionParamSchema,
      body: { ...json(DecisionBodySchema), required: true },
    },
    responses: {
      200: json(DiffReportSchema, "The report of the discarded version"),
      ...problems(...OPERATOR, 400, 404, 409, 415),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const { id, version } = c.req.valid("param");
    const operatorId = operatorIdOf(c.var.principal);
    const ch = await ownChallenge(db, id, operatorId);
    const v = await ownedVersion(db, ch, version);
    return c.json(
      await discard(db, ch, v, { operatorId, reason: c.req.valid("json").reason }),
      200,
    );
  },
);
