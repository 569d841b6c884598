/**
 * @module ingest/routes/challenges
 * Challenges: operators create, update, upload the bundle, publish (after the runner's QA
 * passes) and close them; agents list and read published ones and enter them. Invariants:
 * scoring configuration changes only while a challenge is a draft; a draft or closed
 * challenge is invisible to agents (404); agent views never include the hidden tests; a
 * bundle's row is written before its object, and reverted if the object cannot be stored.
 */
import { createRoute } from "@hono/zod-openapi";
import {
  closeChallenge,
  createDb,
  enterChallenge,
  findChallenge,
  insertChallenge,
  listChallenges,
  publishChallenge,
  revertDraftBundle,
  updateDraftChallenge,
  type ChallengePatch,
  type ChallengeRow,
  sha256Hex,
} from "@bouts/db";
import { canSeeChallenge, ownedChallenge, ownsChallenge, visibleChallenge } from "../access.ts";
import { agentIdOf, operatorIdOf, requireAgent, requireOperator } from "../auth.ts";
import { readBundleManifest } from "../bundle.ts";
import { checkCustomWeights } from "../challenge-config.ts";
import { readConfig } from "../config.ts";
import { fail } from "../errors.ts";
import { BEARER, createRouter, json, problems } from "../openapi.ts";
import { runChallengeQa } from "../runner-client.ts";
import {
  ChallengeListSchema,
  ChallengeSchema,
  CreateChallengeBodySchema,
  EntrySchema,
  IdParamSchema,
  UpdateChallengeBodySchema,
} from "../schemas.ts";
import { ensureObject, releaseObjectQuietly } from "../storage.ts";
import { readBodyLimited } from "../uploads.ts";
import { detectArchiveFormat } from "@bouts/archive";
import { challengeToWire, entryToWire } from "../views.ts";

export const challengeRoutes = createRouter();

const tags = ["challenges"];

function notDraft(ch: ChallengeRow): never {
  fail({
    reason: "conflict",
    detail: `The challenge is ${ch.status}; only drafts can change. Create a new challenge instead.`,
  });
}

challengeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges",
    tags,
    summary: "Create a draft challenge",
    security: BEARER,
    middleware: [requireOperator] as const,
    request: { body: { ...json(CreateChallengeBodySchema), required: true } },
    responses: { 201: json(ChallengeSchema, "The draft"), ...problems(403, 409, 422) },
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
    method: "get",
    path: "/challenges",
    tags,
    summary: "List challenges: published and closed ones, plus the caller's own drafts",
    security: BEARER,
    responses: { 200: json(ChallengeListSchema, "The challenges"), ...problems() },
  }),
  async (c) => {
    const p = c.var.principal;
    const operator = p.role === "operator";
    const rows = await listChallenges(
      createDb(c.env.DB),
      operator ? ["draft", "published", "closed"] : ["published", "closed"],
    );
    const max = readConfig(c.env).maxArchiveBytes;
    const visible = rows.filter((r) => canSeeChallenge(p, r));
    return c.json(
      { challenges: visible.map((r) => challengeToWire(r, ownsChallenge(p, r), max)) },
      200,
    );
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}",
    tags,
    summary: "Read a challenge by id or slug",
    security: BEARER,
    request: { params: IdParamSchema },
    responses: { 200: json(ChallengeSchema, "The challenge"), ...problems(404) },
  }),
  async (c) => {
    const p = c.var.principal;
    const ch = await visibleChallenge(createDb(c.env.DB), p, c.req.valid("param").id);
    return c.json(
      challengeToWire(ch, ownsChallenge(p, ch), readConfig(c.env).maxArchiveBytes),
      200,
    );
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/challenges/{id}",
    tags,
    summary: "Update a draft challenge",
    security: BEARER,
    middleware: [requireOperator] as const,
    request: {
      params: IdParamSchema,
      body: { ...json(UpdateChallengeBodySchema), required: true },
    },
    responses: { 200: json(ChallengeSchema, "The updated draft"), ...problems(403, 404, 409, 422) },
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
    security: BEARER,
    middleware: [requireOperator] as const,
    request: {
      params: IdParamSchema,
      body: {
        required: true,
        content: { "application/gzip": { schema: { type: "string", format: "binary" } } },
      },
    },
    responses: {
      200: json(ChallengeSchema, "The draft with its bundle"),
      ...problems(403, 404, 409, 411, 413, 415, 422, 503),
    },
  }),
  async (c) => {
    const cfg = readConfig(c.env);
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    if (ch.status !== "draft") notDraft(ch);
    const type = (c.req.header("Content-Type") ?? "").split(";")[0]?.trim();
    if (type !== "application/gzip" && type !== "application/x-gzip") {
      fail({ reason: "unsupported-media-type", detail: "Send the bundle as application/gzip." });
    }
    const bytes = await readBodyLimited(c.req.raw, cfg.maxBundleBytes, "bundle");
    if (detectArchiveFormat(bytes) !== "tar.gz") {
      fail({ reason: "unsupported-media-type", detail: "The bundle is not gzip data (.tar.gz)." });
    }
    const manifest = await readBundleManifest(bytes, cfg.maxBundleBytes);
    if (!manifest.ok) {
      const e = manifest.error;
      if (e.reason === "archive")
        fail({ reason: "archive-refused", what: "bundle", refusal: e.refusal });
      fail({
        reason: "unprocessable",
        detail: e.detail,
        ...(e.errors ? { errors: e.errors } : {}),
      });
    }
    if (manifest.value.id !== ch.slug) {
      fail({
        reason: "unprocessable",
        detail: `The manifest's id (${manifest.value.id}) differs from the challenge's slug (${ch.slug}).`,
      });
    }
    const sha256 = await sha256Hex(bytes);
    const object = { key: `bundles/${sha256}`, bytes, contentType: "application/gzip" };
    // Write order, as for submissions (docs/storage-schema.md): the row first, then the object
    // it names, so that a concurrent undo of the same bytes can never leave the row without
    // its object; if the object cannot be stored, the row goes back to its previous bundle.
    let updated: boolean;
    try {
      updated = await updateDraftChallenge(
        db,
        ch.id,
        {
          bundleKey: object.key,
          bundleSha256: sha256,
          bundleManifest: JSON.stringify(manifest.value),
          qaReport: null,
          qaPassed: null,
        },
        Date.now(),
      );
    } catch (err) {
      console.error("D1 bundle update failed", err);
      fail({ reason: "unavailable", service: "database", retryAfter: 30 });
    }
    if (!updated) notDraft({ ...ch, status: "published" });
    try {
      await ensureObject(c.env.ARTIFACTS, object);
    } catch (err) {
      console.error("R2 put of a bundle failed", err);
      const previous = {
        bundleKey: ch.bundleKey,
        bundleSha256: ch.bundleSha256,
        bundleManifest: ch.bundleManifest,
        qaReport: ch.qaReport,
        qaPassed: ch.qaPassed,
      };
      await revertDraftBundle(db, ch.id, object.key, previous, Date.now()).catch((e: unknown) =>
        console.error("could not revert the bundle fields", e),
      );
      await releaseObjectQuietly(c.env.ARTIFACTS, db, object);
      fail({ reason: "unavailable", service: "artifact store", retryAfter: 30 });
    }
    if (ch.bundleKey && ch.bundleKey !== object.key) {
      const old = await c.env.ARTIFACTS.get(ch.bundleKey);
      if (old) {
        const oldObject = {
          key: ch.bundleKey,
          bytes: new Uint8Array(await old.arrayBuffer()),
          contentType: "application/gzip",
        };
        await releaseObjectQuietly(c.env.ARTIFACTS, db, oldObject);
      }
    }
    const fresh = await ownedChallenge(db, c.var.principal, ch.id);
    return c.json(challengeToWire(fresh, true, cfg.maxArchiveBytes), 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/publish",
    tags,
    summary: "Run the runner's challenge QA on the bundle and publish if it passes",
    security: BEARER,
    middleware: [requireOperator] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(ChallengeSchema, "The published challenge"),
      ...problems(403, 404, 409, 422, 503),
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
    const qa = await runChallengeQa(
      c.env,
      cfg.runnerUrl,
      new Uint8Array(await object.arrayBuffer()),
    );
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
    if (!(await publishChallenge(db, ch.id, ch.bundleSha256, now))) {
      fail({ reason: "conflict", detail: "The challenge or its bundle changed during QA; retry." });
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
    security: BEARER,
    middleware: [requireOperator] as const,
    request: { params: IdParamSchema },
    responses: { 200: json(ChallengeSchema, "The closed challenge"), ...problems(403, 404, 409) },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const ch = await ownedChallenge(db, c.var.principal, c.req.valid("param").id);
    if (!(await closeChallenge(db, ch.id, Date.now()))) {
      fail({
        reason: "conflict",
        detail: `Only a published challenge can close; it is ${ch.status}.`,
      });
    }
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
    security: BEARER,
    middleware: [requireAgent] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(EntrySchema, "Already entered: the original entry"),
      201: json(EntrySchema, "Entered now"),
      ...problems(403, 404),
    },
  }),
  async (c) => {
    const agentId = agentIdOf(c.var.principal);
    const db = createDb(c.env.DB);
    const ch = await visibleChallenge(db, c.var.principal, c.req.valid("param").id);
    if (ch.status !== "published") {
      fail({ reason: "conflict", detail: "The challenge is closed to new entries." });
    }
    const { entry, created } = await enterChallenge(db, {
      agentId,
      challengeId: ch.id,
      enteredAt: Date.now(),
    });
    return c.json(entryToWire(entry), created ? 201 : 200);
  },
);
