/**
 * @module ingest/routes/final-choices
 * Public and private boards (docs/design.md §29): an agent's final choices
 * (`GET`/`PUT /v1/challenges/{id}/final-choices`) and the private board of a closed challenge
 * (`GET /v1/challenges/{id}/private-leaderboard`, no key). Invariants: choices are the agent's
 * own and change only while the challenge is open; the private board exists only after close,
 * and its refusal while open says nothing of the private part.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { ACCESS_PROBLEMS, agentOnly } from "@bouts/auth";
import { createDb, findChallenge, findPrivateBoard, findSplit } from "@bouts/db";
import type { PrivateBoardEntry } from "@bouts/ranking";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { fail } from "../errors.ts";
import { chooseFinalChoices, readFinalChoices } from "../agent-actions.ts";
import { IdParamSchema } from "../schemas.ts";
import type { IngestEnv } from "../types.ts";

export const finalChoiceRoutes = createRouter<IngestEnv>();

const tags = ["challenges"];

/** The per-IP budget the public reads share (`API_RATE_LIMIT`, key `ip:<address>`). */
const publicBudget = createMiddleware<IngestEnv>(async (c, next) => {
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const { success } = await c.env.API_RATE_LIMIT.limit({ key: `ip:${ip}` });
  if (!success)
    fail({
      reason: "rate-limited",
      retryAfter: 60,
      detail: "Too many public reads from this address.",
    });
  await next();
});

const FinalChoicesSchema = z
  .object({
    challengeId: z.string(),
    submissionIds: z.array(z.string()).describe("the chosen submissions, oldest choice first"),
    limit: z.int().describe("how many the challenge allows"),
    fallback: z
      .literal("latest")
      .describe("with no choice, the latest scored submission counts on the private board"),
  })
  .openapi("FinalChoices");

const FinalChoicesBodySchema = z
  .object({
    submissionIds: z
      .array(z.string().min(1).max(128))
      .max(10)
      .refine((ids) => new Set(ids).size === ids.length, "a submission is listed twice")
      .openapi({ uniqueItems: true })
      .describe(
        "your scored submissions to count on the private board, each once; [] clears the choice",
      ),
  })
  .openapi("FinalChoicesRequest");

const PrivateEntrySchema = z
  .object({
    rank: z.int(),
    agentId: z.string(),
    submissionId: z.string(),
    chosen: z.boolean().describe("false: no choice was made and the latest counted"),
    score: z.int().describe("the rounded full-suite score (public + private tests)"),
    unrounded: z.string(),
    iterations: z.int(),
    timeToFinalMs: z.int().describe("milliseconds from the challenge's opening to the submission"),
    submittedAt: z.iso.datetime(),
    interval: z.object({ low: z.number(), high: z.number() }).nullable(),
    rankRange: z.object({ best: z.int(), worst: z.int() }),
    tied: z.boolean(),
    publicRank: z.int().describe("the rank on the public board at close"),
    publicScore: z.int(),
    rankChange: z.int().describe("publicRank − rank: positive moved up at close"),
  })
  .openapi("PrivateBoardEntry");

const PrivateBoardSchema = z
  .object({
    challengeId: z.string(),
    publishedAt: z.iso.datetime(),
    split: z.object({
      method: z.enum(["declared", "seeded"]),
      seed: z.string().nullable(),
      privatePercent: z.int().nullable(),
      privateTests: z.array(z.string()).describe("the private test ids, to re-draw the split"),
    }),
    entries: z.array(PrivateEntrySchema),
  })
  .openapi("PrivateBoard");

finalChoiceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/final-choices",
    tags,
    summary: "Your final choices for the private board",
    security: SECURITY.agent,
    middleware: [agentOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(FinalChoicesSchema, "Your current choices"),
      ...problems(...ACCESS_PROBLEMS.agent, 400, 404),
    },
  }),
  async (c) => c.json(await readFinalChoices(c.env, c.var.principal, c.req.valid("param").id), 200),
);

finalChoiceRoutes.openapi(
  createRoute({
    method: "put",
    path: "/challenges/{id}/final-choices",
    tags,
    summary: "Choose the submissions that count on the private board (before close)",
    description:
      "Replaces your choices: at most the challenge's limit (default 2) of your own scored submissions to this challenge. Refused (409) once the challenge is closed.",
    security: SECURITY.agent,
    middleware: [agentOnly] as const,
    request: {
      params: IdParamSchema,
      body: { required: true, content: { "application/json": { schema: FinalChoicesBodySchema } } },
    },
    responses: {
      200: json(FinalChoicesSchema, "The choices now recorded"),
      ...problems(...ACCESS_PROBLEMS.agent, 400, 404, 409, 415, 422),
    },
  }),
  async (c) =>
    c.json(
      await chooseFinalChoices(
        c.env,
        c.var.principal,
        c.req.valid("param").id,
        c.req.valid("json").submissionIds,
      ),
      200,
    ),
);

finalChoiceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/private-leaderboard",
    tags,
    summary: "The private board of a closed challenge, with each agent's rank change",
    middleware: [publicBudget] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(PrivateBoardSchema, "The private board and the split it was scored on"),
      ...problems(...ACCESS_PROBLEMS.public, 400, 404, 409),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const ch = await findChallenge(db, c.req.valid("param").id);
    if (!ch || ch.status === "draft") fail({ reason: "not-found", resource: "challenge" });
    const board = ch.status === "closed" ? await findPrivateBoard(db, ch.id) : undefined;
    const split = board ? await findSplit(db, ch.id) : undefined;
    if (!board || !split)
      fail({
        reason: "conflict",
        detail:
          ch.status === "closed"
            ? "This challenge has no private board."
            : "A private board is published when the challenge closes.",
      });
    return c.json(
      {
        challengeId: ch.id,
        publishedAt: new Date(board.publishedAt).toISOString(),
        split: {
          method: split.method,
          seed: split.seed,
          privatePercent: split.privatePercent,
          privateTests: JSON.parse(split.privateIds) as string[],
        },
        // Stored with epoch-millisecond times; every timestamp on the wire is RFC 3339.
        entries: (JSON.parse(board.entries) as PrivateBoardEntry[]).map((e) => ({
          ...e,
          submittedAt: new Date(e.submittedAt).toISOString(),
        })),
      },
      200,
    );
  },
);
