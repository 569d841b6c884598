/**
 * @module ingest/routes/submissions
 * Submitting and reading submissions. Invariants: the key is checked (401/403) before
 * anything else, in the same query that reads the challenge and the agent's standing; cheap
 * checks (rate limit, challenge state, quota, media type, size, archive signature, claims
 * schema, trace format) run before anything is stored; the write order (D1 batch, then the R2
 * objects, then the queue, then D1; docs/storage-schema.md) undoes every earlier step when a
 * later one fails; another agent's submission answers 404, like a missing one.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import {
  findIdempotencyRecord,
  createDb,
  deleteReceivedSubmission,
  findSubmission,
  findRunnerRetryAt,
  findSubmitContext,
  insertSubmission,
  listAgentSubmissions,
  markSubmissionQueued,
  releaseIdempotencyKey,
  sha256Hex,
  type Db,
  type NewSubmission,
  type SubmitChallenge,
  type SubmitContext,
} from "@bouts/db";
import { problemFromZodError } from "@bouts/contracts";
import {
  checkAdmission,
  createAdmissionSink,
  DEFAULT_ARCHIVE_LIMITS,
  detectArchiveFormat,
  readArchive,
} from "@bouts/archive";
import { visibleChallenge } from "../access.ts";
import { agentIdOf, checkRateLimit, readBearer, requireAgent, verifyPrincipal } from "../auth.ts";
import { parseStoredLimits } from "../challenge-config.ts";
import { readConfig, type IngestConfig } from "../config.ts";
import { fail } from "../errors.ts";
import type { SubmissionMessage } from "../messages.ts";
import { BEARER, createRouter, json, problems } from "../openapi.ts";
import type { IngestEnv } from "../types.ts";
import {
  ClaimsSchema,
  IdParamSchema,
  SubmissionListSchema,
  SubmissionSchema,
  SUBMIT_BODY_DOC,
} from "../schemas.ts";
import { putObject, releaseObjectQuietly, type StoredObject } from "../storage.ts";
import { archiveContentType, checkTrace, readBodyLimited, type ArchiveType } from "../uploads.ts";
import type { ChallengeLimitsBody } from "../schemas.ts";
import { submissionToWire } from "../views.ts";

export const submissionRoutes = createRouter();

const tags = ["submissions"];
const MULTIPART_OVERHEAD = 64 * 1024;
const IDEMPOTENCY_LEASE_MS = 60_000;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const PARTS = new Set(["archive", "claims", "trace"]);

/** The parsed, checked parts of a submission, not yet stored. */
type SubmissionParts = {
  archive: StoredObject & { sha256: string; type: ArchiveType };
  trace: (StoredObject & { sha256: string }) | null;
  claimsJson: string | null;
};

/** A challenge an agent may see (not a draft), with its stored limits parsed once. */
type OpenChallenge = SubmitChallenge & { parsedLimits: ChallengeLimitsBody };

/** The challenge of a submit context; a draft (or missing) challenge is a 404 to agents. */
function openChallengeOf(ctx: SubmitContext): OpenChallenge {
  const ch = ctx.challenge;
  if (!ch || ch.status === "draft") fail({ reason: "not-found", resource: "challenge" });
  return { ...ch, parsedLimits: parseStoredLimits(ch.limits) };
}

/** Refuses the submission early when the challenge's state or quota already forbids it. */
function checkCanSubmit(ctx: SubmitContext, ch: OpenChallenge, now: number): void {
  if (ch.status !== "published") {
    fail({ reason: "conflict", detail: "The challenge is closed to new submissions." });
  }
  if (!ctx.entered) {
    fail({ reason: "conflict", detail: "Enter the challenge before submitting to it." });
  }
  if (ctx.submissions >= ch.maxIterations) quotaExhausted(ch);
  const { cooldownSeconds } = ch.parsedLimits;
  if (cooldownSeconds > 0 && ctx.lastSubmittedAt !== null) {
    const wait = ctx.lastSubmittedAt + cooldownSeconds * 1000 - now;
    if (wait > 0) {
      fail({
        reason: "rate-limited",
        retryAfter: Math.ceil(wait / 1000),
        detail: `This challenge allows one submission every ${cooldownSeconds} s.`,
      });
    }
  }
}

/**
 * Refuses a submission once the agent spent its runner time over the window (all challenges):
 * one agent cannot hold the runner fleet, however many submissions its quotas allow.
 */
async function checkRunnerTime(
  db: Db,
  agentId: string,
  usedMs: number,
  cfg: IngestConfig,
  now: number,
): Promise<void> {
  if (usedMs < cfg.runnerCeilingMs) return;
  const retryAt = await findRunnerRetryAt(
    db,
    agentId,
    now,
    cfg.runnerWindowMs,
    cfg.runnerCeilingMs,
  );
  if (retryAt === null) return;
  const seconds = (ms: number) => Math.ceil(ms / 1000);
  fail({
    reason: "runner-time-exhausted",
    retryAfter: Math.max(1, seconds(retryAt - now)),
    detail:
      `Your submissions used ${seconds(usedMs)} s of runner time in the last ` +
      `${seconds(cfg.runnerWindowMs)} s; each agent may use ${seconds(cfg.runnerCeilingMs)} s ` +
      "across all challenges in that window.",
  });
}

function quotaExhausted(ch: SubmitChallenge): never {
  fail({
    reason: "quota-exhausted",
    // The quota does not reset while the challenge runs: a day is an honest upper bound.
    retryAfter: 86_400,
    detail: `This challenge allows ${ch.maxIterations} submissions per agent; all are used.`,
  });
}

type SubmitEnv = IngestEnv & {
  Variables: IngestEnv["Variables"] & { submitContext: SubmitContext };
};

/**
 * The submit route's authentication (the app-level `authenticate` leaves it to this): one
 * query reads the key and, with it, the challenge and the agent's standing there; the key is
 * verified exactly as `authenticate` does (401) before any of the rest is looked at.
 */
const authenticateSubmitter = createMiddleware<SubmitEnv>(async (c, next) => {
  const bearer = readBearer(c.req.header("Authorization"));
  const now = Date.now();
  const ctx = bearer.key
    ? await findSubmitContext(
        createDb(c.env.DB),
        bearer.key.id,
        c.req.param("id") ?? "",
        c.req.header("Idempotency-Key") ?? null,
        now,
        now - readConfig(c.env).runnerWindowMs,
      )
    : undefined;
  c.set("principal", await verifyPrincipal(bearer, ctx?.key));
  if (ctx) c.set("submitContext", ctx);
  await next();
});

/** Reads and checks the multipart body; nothing is stored yet. */
async function parseSubmission(
  request: Request,
  cfg: IngestConfig,
  ch: OpenChallenge,
): Promise<SubmissionParts> {
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data;/i.test(contentType)) {
    fail({
      reason: "unsupported-media-type",
      detail: "Send the submission as multipart/form-data with an `archive` file part.",
    });
  }
  const archiveLimit = Math.min(
    ch.parsedLimits.maxArchiveBytes ?? cfg.maxArchiveBytes,
    cfg.maxArchiveBytes,
  );
  const bodyLimit = archiveLimit + cfg.maxTraceBytes + cfg.maxClaimsBytes + MULTIPART_OVERHEAD;
  const body = await readBodyLimited(request, bodyLimit, "submission body");
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    invalid("body", "the multipart body could not be parsed");
  }
  for (const name of new Set(form.keys())) {
    if (!PARTS.has(name))
      invalid(name, "unknown part: only archive, claims and trace are accepted");
    if (form.getAll(name).length > 1) invalid(name, "the part appears more than once");
  }
  const archive = form.get("archive");
  if (!(archive instanceof File)) invalid("archive", "a file part named archive is required");
  if (archive.size > archiveLimit) {
    fail({ reason: "payload-too-large", what: "archive", limit: archiveLimit });
  }
  const archiveBytes = new Uint8Array(await archive.arrayBuffer());
  const type = detectArchiveFormat(archiveBytes);
  if (!type) {
    fail({
      reason: "unsupported-media-type",
      detail: "The archive is neither .tar.gz (gzip) nor .zip by its signature.",
    });
  }
  // The runner's own validator and admission rules, in full, before anything is stored: an
  // archive it would refuse never reaches R2 or the queue.
  const admission = createAdmissionSink();
  const checked = await readArchive(
    archiveBytes,
    { ...DEFAULT_ARCHIVE_LIMITS, maxArchiveBytes: archiveLimit },
    admission.sink,
  );
  if (!checked.ok) fail({ reason: "archive-refused", what: "archive", refusal: checked.error });
  const admitted = checkAdmission(
    {
      files: checked.value.files.map((f) => f.path),
      dirs: admission.dirs,
      samples: admission.samples,
    },
    { module: ch.interfaceModule },
  );
  if (!admitted.ok) fail({ reason: "archive-refused", what: "archive", refusal: admitted.error });
  const archiveSha = await sha256Hex(archiveBytes);

  let claimsJson: string | null = null;
  const claims = form.get("claims");
  if (claims !== null) {
    const text = typeof claims === "string" ? claims : await claims.text();
    if (new TextEncoder().encode(text).byteLength > cfg.maxClaimsBytes) {
      fail({ reason: "payload-too-large", what: "claims part", limit: cfg.maxClaimsBytes });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      invalid("claims", "the claims part is not valid JSON");
    }
    const parsed = ClaimsSchema.safeParse(raw);
    if (!parsed.success) {
      fail({ reason: "invalid", problem: problemFromZodError(parsed.error, "claims") });
    }
    claimsJson = JSON.stringify(parsed.data);
  }

  let trace: SubmissionParts["trace"] = null;
  const traceFile = form.get("trace");
  if (traceFile !== null) {
    if (!(traceFile instanceof File)) invalid("trace", "the trace must be a file part");
    if (traceFile.size > cfg.maxTraceBytes) {
      fail({ reason: "payload-too-large", what: "trace", limit: cfg.maxTraceBytes });
    }
    if (traceFile.size === 0) invalid("trace", "the trace is empty");
    const bytes = new Uint8Array(await traceFile.arrayBuffer());
    checkTrace(bytes, cfg.maxTraceBytes);
    const sha256 = await sha256Hex(bytes);
    trace = { key: `traces/${sha256}`, bytes, sha256, contentType: "application/octet-stream" };
  }
  return {
    archive: {
      key: `artifacts/${archiveSha}`,
      bytes: archiveBytes,
      sha256: archiveSha,
      type,
      contentType: archiveContentType(type),
    },
    trace,
    claimsJson,
  };
}

function invalid(path: string, message: string): never {
  fail({
    reason: "invalid",
    problem: {
      type: "urn:bouts:problem:validation",
      title: "Invalid request",
      status: 400,
      detail: `Invalid submission: ${path}: ${message}`,
      errors: [{ path, message }],
    },
  });
}

type SubmissionView = z.infer<typeof SubmissionSchema>;

/** What makes two submit requests "the same body": the challenge and the parts' content. */
function requestHashOf(challengeId: string, parts: SubmissionParts): Promise<string> {
  return sha256Hex(
    JSON.stringify([
      challengeId,
      parts.archive.sha256,
      parts.trace?.sha256 ?? null,
      parts.claimsJson,
    ]),
  );
}

/** Headers of a replayed idempotent answer. */
function replayHeaders(view: SubmissionView): Record<string, string> {
  return { "Idempotent-Replayed": "true", Location: view.url };
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
      "retry with the same body replays the first answer for at least 24 hours.",
    security: BEARER,
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
      ...problems(403, 404, 409, 413, 415, 422, 503),
    },
  }),
  async (c) => {
    const principal = c.var.principal;
    const agentId = agentIdOf(principal);
    const submitCtx = c.var.submitContext;
    const cfg = readConfig(c.env);
    const db = createDb(c.env.DB);
    const idemKey = c.req.header("Idempotency-Key") ?? null;
    if (idemKey !== null && !IDEMPOTENCY_KEY.test(idemKey)) {
      invalid("Idempotency-Key", "1 to 255 printable ASCII characters");
    }
    // After authentication, so that nobody can spend another key's budget; before anything
    // is read from the body or stored.
    await checkRateLimit(c.env.SUBMIT_RATE_LIMIT, principal.keyId, "submissions");
    const ch = openChallengeOf(submitCtx);
    const now = Date.now();
    // A retry of an earlier request (its key is on record) goes on to the idempotency check,
    // which replays, refuses a different body (422) or waits for the first (409), even once
    // the first used the last of the quota or started the cooldown.
    if (!submitCtx.idempotencyKeyKnown) {
      checkCanSubmit(submitCtx, ch, now);
      await checkRunnerTime(db, agentId, submitCtx.runnerMs, cfg, now);
    }
    const parts = await parseSubmission(c.req.raw, cfg, ch);
    const origin = new URL(c.req.url).origin;

    const row: NewSubmission = {
      id: crypto.randomUUID(),
      agentId,
      challengeId: ch.id,
      artifactSha256: parts.archive.sha256,
      artifactKey: parts.archive.key,
      artifactSize: parts.archive.bytes.byteLength,
      artifactType: parts.archive.type,
      claims: parts.claimsJson,
      traceKey: parts.trace?.key ?? null,
      traceSha256: parts.trace?.sha256 ?? null,
      receivedAt: now,
    };
    const claim =
      idemKey === null
        ? null
        : {
            agentId,
            key: idemKey,
            requestHash: await requestHashOf(ch.id, parts),
            leaseUntil: now + IDEMPOTENCY_LEASE_MS,
            expiresAt: now + cfg.idempotencyTtlMs,
          };
    const objects = parts.trace ? [parts.archive, parts.trace] : [parts.archive];
    /** Undo of steps 1 and 2: the row, our claim, then the objects no row references. */
    const undo = async () => {
      await deleteReceivedSubmission(db, row.id).catch(logUndo);
      if (claim) await releaseIdempotencyKey(db, agentId, claim.key, row.id).catch(logUndo);
      for (const o of objects) await releaseObjectQuietly(c.env.ARTIFACTS, db, o);
    };

    // ─── 1. D1 batch (one transaction): the idempotency claim, the row and its iteration ───
    // Nothing acts on the row before the queue message (step 3), and the objects are stored
    // after the commit (step 2), so a concurrent undo of identical bytes can never leave the
    // row without its object; a refused or duplicate request stores nothing at all.
    const { cooldownSeconds } = ch.parsedLimits;
    let written: Awaited<ReturnType<typeof insertSubmission>>;
    try {
      written = await insertSubmission(
        db,
        row,
        {
          maxIterations: ch.maxIterations,
          cooldownSince: cooldownSeconds > 0 ? now - cooldownSeconds * 1000 + 1 : null,
        },
        claim,
      );
    } catch (err) {
      console.error("D1 submission insert failed", err);
      fail({ reason: "unavailable", service: "database", retryAfter: 30 });
    }
    if (written.kind === "duplicate" && claim) {
      const record = await findIdempotencyRecord(db, agentId, claim.key);
      if (record && record.requestHash !== claim.requestHash) {
        fail({ reason: "idempotency-mismatch" });
      }
      if (record?.state === "done" && record.responseBody !== null) {
        const view = JSON.parse(record.responseBody) as SubmissionView;
        return c.json(view, 202, replayHeaders(view));
      }
      // Still in flight. If its submission committed and its lease ran out (the request
      // died before recording its answer), answer with that submission.
      const linked = record?.submissionId
        ? await findSubmission(db, record.submissionId)
        : undefined;
      if (record && linked && record.leaseUntil < now) {
        const view = submissionToWire(linked, origin);
        return c.json(view, 202, replayHeaders(view));
      }
      fail({
        reason: "idempotency-in-flight",
        retryAfter: Math.max(1, Math.ceil(((record?.leaseUntil ?? now) - now) / 1000)),
      });
    }
    if (written.kind !== "inserted") {
      // A guard failed under concurrency: say which.
      const fresh = await findSubmitContext(db, principal.keyId, ch.id, null, now);
      if (fresh) checkCanSubmit(fresh, openChallengeOf(fresh), now);
      quotaExhausted(ch);
    }

    // ─── 2. R2: the objects, once the row that references them is committed ───
    try {
      await Promise.all(objects.map((o) => putObject(c.env.ARTIFACTS, o)));
    } catch (err) {
      console.error("R2 put failed", err);
      await undo();
      fail({ reason: "unavailable", service: "artifact store", retryAfter: 30 });
    }

    // ─── 3. Queue: ids only, once the objects are there ───
    try {
      const message: SubmissionMessage = {
        v: 1,
        submissionId: row.id,
        challengeId: ch.id,
        agentId,
      };
      await c.env.SUBMISSIONS.send(message, { contentType: "json" });
    } catch (err) {
      console.error("enqueue failed", err);
      await undo();
      fail({ reason: "unavailable", service: "submission queue", retryAfter: 30 });
    }

    // ─── 4. D1: queued, and the idempotent answer ───
    const queuedAt = Date.now();
    const view = submissionToWire(
      {
        ...row,
        iteration: written.iteration,
        status: "queued",
        failureReason: null,
        failureCode: null,
        queuedAt,
        runningAt: null,
        scoredAt: null,
        failedAt: null,
      },
      origin,
    );
    try {
      await markSubmissionQueued(
        db,
        row.id,
        queuedAt,
        claim ? { agentId, key: claim.key, status: 202, body: JSON.stringify(view) } : null,
      );
    } catch (err) {
      // The message is out: the consumer accepts a row still marked received, and a retry
      // with the same key finds the linked submission once the lease ends.
      console.error("could not mark submission queued", err);
    }
    return c.json(view, 202, { Location: view.url });
  },
);

function logUndo(err: unknown) {
  console.error("undo step failed", err);
}

submissionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/submissions/{id}",
    tags,
    summary: "Read one of your submissions: status, timestamps, failure reason",
    security: BEARER,
    middleware: [requireAgent] as const,
    request: { params: IdParamSchema },
    responses: { 200: json(SubmissionSchema, "The submission"), ...problems(403, 404) },
  }),
  async (c) => {
    const agentId = agentIdOf(c.var.principal);
    const s = await findSubmission(createDb(c.env.DB), c.req.valid("param").id);
    // Another agent's submission is indistinguishable from a missing one.
    if (!s || s.agentId !== agentId) fail({ reason: "not-found", resource: "submission" });
    return c.json(submissionToWire(s, new URL(c.req.url).origin), 200);
  },
);

submissionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/challenges/{id}/submissions",
    tags,
    summary: "List your submissions on a challenge, newest first",
    security: BEARER,
    middleware: [requireAgent] as const,
    request: { params: IdParamSchema },
    responses: { 200: json(SubmissionListSchema, "Your submissions"), ...problems(403, 404) },
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
