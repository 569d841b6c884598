/**
 * @module ingest/routes/challenges
 * Challenges: operators create, update, upload the bundle (`bundle-upload.ts`), publish
 * (after the runner's QA passes) and close them; agents enter them. The list and one
 * challenge are read through `challenge-reads.ts` (the platform serves them, with or
 * without a key). Invariants: scoring configuration changes only while a challenge is a
 * draft; a draft is invisible to agents (404); a closed challenge takes no entries (409).
 */
import { createRoute } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, agentOnly, operatorIdOf, operatorOnly } from "@bouts/auth";
import {
  closeChallenge,
  createDb,
  findChallenge,
  insertChallenge,
  publishChallenge,
  setChallengeDeadline,
  updateDraftChallenge,
  type ChallengePatch,
  type ChallengeRow,
} from "@bouts/db";
import { ChallengeManifestSchema, parseJson } from "@bouts/contracts";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { ownedChallenge } from "../access.ts";
import { enterVisibleChallenge } from "../agent-actions.ts";
import { notDraftError, storeBundle } from "../bundle-upload.ts";
import { queueBaselines } from "../baselines.ts";
import { recordClose, recordManifestSplit } from "../private-board.ts";
import { checkCustomWeights } from "../challenge-config.ts";
import { checkDeadline, pastDeadline } from "../deadline.ts";
import { readConfig } from "../config.ts";
import { fail } from "../errors.ts";
import { runChallengeQa } from "../runner-client.ts";
import {
  BUNDLE_BODY_DOC,
  ChallengeSchema,
  CreateChallengeBodySchema,
  DeadlineBodySchema,
  EntrySchema,
  IdParamSchema,
  UpdateChallengeBodySchema,
} from "../schemas.ts";
import type { IngestEnv } from "../types.ts";
import { challengeToWire } from "../views.ts";

export const challengeRoutes = createRouter<IngestEnv>();

const tags = ["challenges"];
const OPERATOR = ACCESS_PROBLEMS.operator;

function notDraft(ch: ChallengeRow): never {
  fail(notDraftError(ch.status));
}

challengeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges",
    tags,
    summary: "Create a draft challenge",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { body: { ...json(CreateChallengeBodySchema), required: true } },
    responses: {
      201: json(ChallengeSchema, "The draft"),
      ...problems(...OPERATOR, 400, 409, 415, 422),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    checkCustomWeights(body.customWeights);
    const db = createDb(c.env.DB);
    if (await findChallenge(db, body.slug)) {
      fail({ reason: "conflict", detail: `A challenge with slug ${body.slug} already exists.` });
    }
    const now = Date.now();
    const row: ChallengeRow = {
      id: crypto.randomUUID(),
      slug: body.slug,
      title: body.title,
      description: body.description,
      status: "draft",
      profile: body.profile,
      family: body.family,
      customWeights: body.customWeights ? JSON.stringify(body.customWeights) : null,
      rankingMode: body.rankingMode,
      maxIterations: body.maxIterations,
      limits: JSON.stringify(body.limits),
      bundleKey: null,
      bundleSha256: null,
      bundleManifest: null,
      qaReport: null,
      qaPassed: null,
      createdBy: operatorIdOf(c.var.principal),
      createdAt: now,
      updatedAt: now,
      publishedAt: null,
      closedAt: null,
      version: 1,
      closesAt: checkDeadline(body.closesAt, now),
    };
    try {
      await insertChallenge(db, row);
    } catch (err) {
      // The unique slug index is the backstop for two concurrent creates.
      if (String(err).includes("UNIQUE")) {
        fail({ reason: "conflict", detail: `A challenge with slug ${body.slug} already exists.` });
      }
      throw err;
    }
    const cfg = readConfig(c.env);
    return c.json(challengeToWire(row, true, cfg.maxArchiveBytes), 201);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/challenges/{id}",
    tags,
    summary: "Update a draft challenge",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: IdParamSchema,
      body: { ...json(UpdateChallengeBodySchema), required: true },
    },
    responses: {
      200: json(ChallengeSchema, "The updated draft"),
      ...problems(...OPERATOR, 400, 404, 409, 415, 422),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    if (ch.status !== "draft") notDraft(ch);
    if (body.customWeights !== undefined) checkCustomWeights(body.customWeights);
    const patch: ChallengePatch = {
      ...(body.title !== undefined && { title: body.title }),
      ...(body.description !== undefined && { description: body.description }),
      ...(body.profile !== undefined && { profile: body.profile }),
      ...(body.family !== undefined && { family: body.family }),
      ...(body.customWeights !== undefined && {
        customWeights: body.customWeights ? JSON.stringify(body.customWeights) : null,
      }),
      ...(body.rankingMode !== undefined && { rankingMode: body.rankingMode }),
      ...(body.maxIterations !== undefined && { maxIterations: body.maxIterations }),
      ...(body.limits !== undefined && { limits: JSON.stringify(body.limits) }),
      ...(body.closesAt !== undefined && { closesAt: checkDeadline(body.closesAt, Date.now()) }),
    };
    const now = Date.now();
    if (!(await updateDraftChallenge(db, ch.id, patch, now)))
      notDraft({ ...ch, status: "published" });
    const updated = await ownedChallenge(db, c.var.principal, ch.id);
    return c.json(challengeToWire(updated, true, readConfig(c.env).maxArchiveBytes), 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "put",
    path: "/challenges/{id}/bundle",
    tags,
    summary: "Upload the challenge bundle (.tar.gz with challenge.json and the hidden tests)",
    description:
      "The manifest is validated against the bundle contract (docs/challenge-bundle.md) and " +
      "its id must equal the challenge's slug. A new bundle resets the QA verdict.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: IdParamSchema,
      body: {
        required: true,
        content: { "application/gzip": { schema: BUNDLE_BODY_DOC } },
      },
    },
    responses: {
      200: json(ChallengeSchema, "The draft with its bundle"),
      ...problems(...OPERATOR, 400, 404, 409, 413, 415, 422, 503),
    },
  }),
  async (c) => {
    const cfg = readConfig(c.env);
    const db = createDb(c.env.DB);
    const challenge = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    const stored = await storeBundle(c.env, db, cfg, {
      challenge,
      contentType: c.req.header("Content-Type"),
      request: c.req.raw,
    });
    if (!stored.ok) fail(stored.error);
    const fresh = await ownedChallenge(db, c.var.principal, challenge.id);
    return c.json(challengeToWire(fresh, true, cfg.maxArchiveBytes), 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/publish",
    tags,
    summary: "Run the runner's challenge QA on the bundle and publish if it passes",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(ChallengeSchema, "The published challenge"),
      ...problems(...OPERATOR, 400, 404, 409, 422, 503),
    },
  }),
  async (c) => {
    const cfg = readConfig(c.env);
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    if (ch.status !== "draft") {
      fail({ reason: "conflict", detail: `The challenge is already ${ch.status}.` });
    }
    if (!ch.bundleKey || !ch.bundleSha256) {
      fail({ reason: "conflict", detail: "Upload the challenge bundle before publishing." });
    }
    const object = await c.env.ARTIFACTS.get(ch.bundleKey);
    if (!object) fail({ reason: "unavailable", service: "bundle store", retryAfter: 30 });
    const bundleBytes = new Uint8Array(await object.arrayBuffer());
    const qa = await runChallengeQa(c.env, cfg, bundleBytes);
    if (!qa.ok) {
      console.error("challenge QA could not run", qa.error.detail);
      fail({ reason: "unavailable", service: "runner (challenge QA)", retryAfter: 30 });
    }
    const now = Date.now();
    await updateDraftChallenge(
      db,
      ch.id,
      { qaReport: JSON.stringify(qa.value.report), qaPassed: qa.value.passed },
      now,
    );
    if (!qa.value.passed) {
      fail({
        reason: "qa-failed",
        detail: `The runner's challenge QA failed: ${qa.value.problems.slice(0, 3).join("; ") || "see the QA report"}.`,
        errors: qa.value.problems.map((message) => ({ path: "bundle", message })),
      });
    }
    // The split is recorded (seed and assignment) before any submission can be scored.
    const manifest = ChallengeManifestSchema.safeParse(parseJson(ch.bundleManifest));
    if (manifest.success) await recordManifestSplit(db, ch, manifest.data, now);
    if (!(await publishChallenge(db, ch.id, ch.bundleSha256, now))) {
      fail({ reason: "conflict", detail: "The challenge or its bundle changed during QA; retry." });
    }
    // The baselines the bundle ships are scored by the same pipeline as every entrant.
    if (manifest.success && manifest.data.baselines.length > 0) {
      try {
        const queued = await queueBaselines(
          c.env,
          db,
          ch,
          manifest.data,
          bundleBytes,
          cfg.maxBundleBytes,
          now,
        );
        if (!queued.ok) console.error(`publish ${ch.id}: baselines not queued: ${queued.error}`);
      } catch (e) {
        // Rows already queued are re-sent by the scoring reconciler; the challenge is published.
        console.error(`publish ${ch.id}: queueing baselines failed`, e);
      }
    }
    const fresh = await ownedChallenge(db, c.var.principal, ch.id);
    return c.json(challengeToWire(fresh, true, cfg.maxArchiveBytes), 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/close",
    tags,
    summary: "Close a published challenge to new entries and submissions",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(ChallengeSchema, "The closed challenge"),
      ...problems(...OPERATOR, 400, 404, 409),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    // Idempotent: closing a closed challenge answers it as it is (and finishes its private
    // board if a first close stopped before publishing it).
    if (ch.status !== "closed" && !(await closeChallenge(db, ch.id, Date.now()))) {
      fail({
        reason: "conflict",
        detail: `Only a published challenge can close; it is ${ch.status}.`,
      });
    }
    await recordClose(db, ch, { kind: "operator", id: operatorIdOf(c.var.principal) }, Date.now());
    const fresh = await ownedChallenge(db, c.var.principal, ch.id);
    return c.json(challengeToWire(fresh, true, readConfig(c.env).maxArchiveBytes), 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "put",
    path: "/challenges/{id}/deadline",
    tags,
    summary: "Set, move or clear a challenge's deadline (a draft or an open challenge)",
    description:
      "Past the deadline no entry, submission or final choice is taken, and the challenge " +
      "closes by itself within the sweep's period (its private board is published). The new " +
      "deadline must be in the future; null clears it. A closed challenge answers 409.",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: IdParamSchema, body: { ...json(DeadlineBodySchema), required: true } },
    responses: {
      200: json(ChallengeSchema, "The challenge with its deadline"),
      ...problems(...OPERATOR, 400, 404, 409, 415, 422),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    const now = Date.now();
    if (ch.status === "closed" || pastDeadline(ch, now))
      fail({ reason: "conflict", detail: "The challenge is closed (or its deadline passed)." });
    const closesAt = checkDeadline(c.req.valid("json").closesAt, now);
    if (!(await setChallengeDeadline(db, ch.id, closesAt, now)))
      fail({ reason: "conflict", detail: "The challenge closed meanwhile." });
    const fresh = await ownedChallenge(db, c.var.principal, ch.id);
    return c.json(challengeToWire(fresh, true, readConfig(c.env).maxArchiveBytes), 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/entries",
    tags,
    summary: "Enter a published challenge; starts the agent's clock (idempotent)",
    security: SECURITY.agent,
    middleware: [agentOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(EntrySchema, "Already entered: the original entry"),
      201: json(EntrySchema, "Entered now"),
      ...problems(...ACCESS_PROBLEMS.agent, 400, 404, 409),
    },
  }),
  async (c) => {
    const { entry, created } = await enterVisibleChallenge(
      c.env,
      c.var.principal,
      c.req.valid("param").id,
    );
    return c.json(entry, created ? 201 : 200);
  },
);
