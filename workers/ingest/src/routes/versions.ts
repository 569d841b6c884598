/**
 * @module ingest/routes/versions
 * Challenge versions (docs/design.md §30): the owner operator uploads a new bundle version of a
 * published challenge (`POST /v1/challenges/{id}/versions`), which goes through QA and starts
 * the shadow rescoring, and reads its versions. The diff report, the promotion and the discard
 * are the leaderboard's (workers/leaderboard routes/versions.ts). Invariants: operator keys of
 * the owning operator only (another's challenge is 404); the live version serves until a
 * promotion.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { createDb, findVersion, listVersions } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { ownedChallenge } from "../access.ts";
import { readConfig } from "../config.ts";
import { fail } from "../errors.ts";
import { BUNDLE_BODY_DOC, IdParamSchema } from "../schemas.ts";
import type { IngestEnv } from "../types.ts";
import { uploadVersion, versionToWire } from "../versions.ts";

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

export const VersionParamSchema = IdParamSchema.extend({
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
    const ch = await ownedChallenge(db, c.var.principal, id);
    const row = await findVersion(db, ch.id, version);
    if (!row) fail({ reason: "not-found", resource: "challenge version" });
    return c.json(await versionToWire(db, row), 200);
  },
);
