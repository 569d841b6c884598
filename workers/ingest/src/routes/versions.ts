/**
 * @module ingest/routes/versions
 * Challenge versions (docs/design.md §30), the whole resource: the owner operator uploads a new
 * bundle version of a published challenge (`POST /v1/challenges/{id}/versions`), which goes
 * through QA and starts the shadow rescoring, reads its versions and a version's diff report,
 * and promotes or discards it (logic in ../versions.ts; the report is `buildDiffReport` of
 * @bouts/db). Invariants: operator keys of the owning operator only, by the one owner check
 * (`ownedChallenge`, ../access.ts: another's challenge is 404, exactly as a missing one): the
 * report names hidden tests, which no agent may read; the live version serves until a
 * promotion; promotion and discard need a reason, kept in the audit trail.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { reasonBodySchema } from "@bouts/contracts";
import { buildDiffReport, createDb, listVersions } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { ownedChallenge, ownedVersion } from "../access.ts";
import { readConfig } from "../config.ts";
import { BUNDLE_BODY_DOC, IdParamSchema } from "../schemas.ts";
import type { IngestEnv } from "../types.ts";
import { discard, promote, uploadVersion, versionToWire } from "../versions.ts";

/** The version routes, to mount at /v1. */
export const versionRoutes = createRouter<IngestEnv>();

const tags = ["challenges"];
const OPERATOR = ACCESS_PROBLEMS.operator;

/** A challenge version as the API shows it. */
export const ChallengeVersionSchema = z
  .object({
    challengeId: z.string(),
    version: z.int().describe("2, 3, …: the challenge was published as version 1"),
    baseVersion: z.int().describe("the live version it was uploaded against"),
    state: z
      .enum(["qa-failed", "rescoring", "ready", "promoted", "discarded"])
      .describe("rescoring → ready → promoted or discarded; qa-failed is final"),
    note: z.string().describe("the operator's note on what changed"),
    bundleSha256: z.string(),
    qaPassed: z.boolean(),
    createdAt: z.iso.datetime(),
    decidedAt: z.iso.datetime().nullable(),
    rescores: z
      .object({
        total: z.int(),
        queued: z.int(),
        running: z.int(),
        scored: z.int(),
        failed: z.int(),
      })
      .describe("the counted submissions re-run against this version, by state"),
  })
  .openapi("ChallengeVersion");

const VersionListSchema = z
  .object({ versions: z.array(ChallengeVersionSchema), liveVersion: z.int() })
  .openapi("ChallengeVersionList");

const VersionQuerySchema = z.object({
  note: z
    .string()
    .max(500)
    .optional()
    .describe("what changed and why (kept with the version and in the audit trail)"),
});

/** A challenge and one of its versions, in every path below a version. */
const VersionParamSchema = IdParamSchema.extend({
  version: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .openapi({ param: { name: "version", in: "path" }, example: 2 }),
});

versionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/versions",
    tags,
    summary: "Upload a new bundle version of a published challenge and rescore it in the shadows",
    description:
      "The bundle is checked like any bundle (docs/challenge-bundle.md) and put through the " +
      "runner's challenge QA. When QA passes, every counted submission (each agent's ranking " +
      "submission and its latest, every final choice, every baseline) is re-run against it at " +
      "lower priority than live scoring; the public board is untouched until a promotion.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: IdParamSchema,
      query: VersionQuerySchema,
      body: { required: true, content: { "application/gzip": { schema: BUNDLE_BODY_DOC } } },
    },
    responses: {
      201: json(ChallengeVersionSchema, "The version, rescoring"),
      ...problems(...OPERATOR, 400, 404, 409, 413, 415, 422, 503),
    },
  }),
  async (c) => {
    const cfg = readConfig(c.env);
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    const row = await uploadVersion(
      c.env,
      db,
      cfg,
      ch,
      { contentType: c.req.header("Content-Type"), request: c.req.raw },
      { operatorId: operatorIdOf(c.var.principal), note: c.req.valid("query").note ?? "" },
    );
    return c.json(await versionToWire(db, row), 201);
  },
);

versionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/versions",
    tags,
    summary: "A challenge's uploaded versions, newest first (operators)",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(VersionListSchema, "The versions and the live one"),
      ...problems(...OPERATOR, 400, 404),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    const rows = await listVersions(db, ch.id);
    return c.json(
      {
        versions: await Promise.all(rows.map((v) => versionToWire(db, v))),
        liveVersion: ch.version,
      },
      200,
    );
  },
);

versionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/versions/{version}",
    tags,
    summary: "One uploaded version and its rescoring progress (operators)",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: VersionParamSchema },
    responses: {
      200: json(ChallengeVersionSchema, "The version"),
      ...problems(...OPERATOR, 400, 404),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const { id, version } = c.req.valid("param");
    const owned = await ownedVersion(db, c.var.principal, id, version);
    return c.json(await versionToWire(db, owned.version), 200);
  },
);

// ─── The diff report, the promotion and the discard ───

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

/** The report `buildDiffReport` (@bouts/db) answers, as the document describes it. */
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
    const owned = await ownedVersion(db, c.var.principal, id, version);
    return c.json(await buildDiffReport(db, owned.challenge, owned.version), 200);
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
    const owned = await ownedVersion(db, c.var.principal, id, version);
    const report = await promote(c.env, owned.challenge, owned.version, {
      operatorId: operatorIdOf(c.var.principal),
      reason: c.req.valid("json").reason,
    });
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
    const owned = await ownedVersion(db, c.var.principal, id, version);
    const report = await discard(db, owned.challenge, owned.version, {
      operatorId: operatorIdOf(c.var.principal),
      reason: c.req.valid("json").reason,
    });
    return c.json(report, 200);
  },
);
