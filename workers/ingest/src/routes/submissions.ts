/**
 * @module ingest/routes/submissions
 * Submitting and reading submissions. Invariants: cheap checks (rate limit, media type,
 * challenge state, quota, size, archive signature, claims schema, trace format) run before anything is
 * stored; the write order (R2 put and D1 batch side by side, then the queue, then D1;
 * docs/storage-schema.md) undoes every earlier step when a later one fails; another agent's
 * submission answers 404, like a missing one.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import {
  findIdempotencyRecord,
  createDb,
  deleteReceivedSubmission,
  findSubmission,
  findSubmitContext,
  insertSubmission,
  listAgentSubmissions,
  markSubmissionQueued,
  releaseIdempotencyKey,
  sha256Hex,
  type ChallengeRow,
  type Db,
  type NewSubmission,
  type SubmitContext,
} from "@bouts/db";
import { problemFromZodError } from "@bouts/contracts";
import { visibleChallenge } from "../access.ts";
import { agentIdOf, checkRateLimit, requireAgent } from "../auth.ts";
import { parseStoredLimits } from "../challenge-config.ts";
import { readConfig, type IngestConfig } from "../config.ts";
import { fail } from "../errors.ts";
import type { SubmissionMessage } from "../messages.ts";
import { BEARER, createRouter, json, problems } from "../openapi.ts";
import {
  ClaimsSchema,
  IdParamSchema,
  SubmissionListSchema,
  SubmissionSchema,
  SUBMIT_BODY_DOC,
} from "../schemas.ts";
import { ensureObject, putObject, releaseObjectQuietly, type StoredObject } from "../storage.ts";
import {
  archiveContentType,
  checkTrace,
  readBodyLimited,
  sniffArchive,
  type ArchiveType,
} from "../uploads.ts";
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

/** Refuses the submission early when the challenge's state or quota already forbids it. */
function checkCanSubmit(ctx: SubmitContext, now: number): void {
  const ch = ctx.challenge;
  if (ch.status !== "published") {
    fail({ reason: "conflict", detail: "The challenge is closed to new submissions." });
  }
  if (!ctx.entered) {
    fail({ reason: "conflict", detail: "Enter the challenge before submitting to it." });
  }
  if (ctx.submissions >= ch.maxIterations) quotaExhausted(ch);
  const { cooldownSeconds } = parseStoredLimits(ch.limits);
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

/** Loads the submit context; a draft (or missing) challenge is a 404 to agents. */
async function loadSubmitContext(db: Db, idOrSlug: string, agentId: string) {
  const ctx = await findSubmitContext(db, idOrSlug, agentId);
  if (!ctx || ctx.challenge.status === "draft") {
    fail({ reason: "not-found", resource: "challenge" });
  }
  return ctx;
}

function quotaExhausted(ch: ChallengeRow): never {
  fail({
    reason: "quota-exhausted",
    // The quota does not reset while the challenge runs: a day is an honest upper bound.
    retryAfter: 86_400,
    detail: `This challenge allows ${ch.maxIterations} submissions per agent; all are used.`,
  });
}

/** Reads and checks the multipart body; nothing is stored yet. */
async function parseSubmission(
  request: Request,
  cfg: IngestConfig,
  ch: ChallengeRow,
): Promise<SubmissionParts> {
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data;/i.test(contentType)) {
    fail({
      reason: "unsupported-media-type",
      detail: "Send the submission as multipart/form-data with an `archive` file part.",
    });
  }
  const archiveLimit = Math.min(
    parseStoredLimits(ch.limits).maxArchiveBytes ?? cfg.maxArchiveBytes,
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
  const type = sniffArchive(archiveBytes);
  if (!type) {
    fail({
      reason: "unsupported-media-type",
      detail: "The archive is neither .tar.gz (gzip) nor .zip by its signature.",
    });
  }
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
    middleware: [requireAgent] as const,
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
    const cfg = readConfig(c.env);
    const db = createDb(c.env.DB);
    const idemKey = c.req.header("Idempotency-Key") ?? null;
    if (idemKey !== null && !IDEMPOTENCY_KEY.test(idemKey)) {
      invalid("Idempotency-Key", "1 to 255 printable ASCII characters");
    }
    const [, submitCtx] = await Promise.all([
      checkRateLimit(c.env.SUBMIT_RATE_LIMIT, principal.keyId, "submissions"),
      loadSubmitContext(db, c.req.valid("param").id, agentId),
    ]);
    const ch = submitCtx.challenge;
    const now = Date.now();
    checkCanSubmit(submitCtx, now);
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
    const releaseObjects = async () => {
      for (const o of objects) await releaseObjectQuietly(c.env.ARTIFACTS, db, o);
    };

    // ─── 1 and 2 side by side: the R2 objects, and the D1 batch (idempotency claim, the
    // row, its iteration). Nothing acts on the row before the queue message (step 3), which
    // waits for both; when one fails, the other is undone.
    const cooldownSeconds = parseStoredLimits(ch.limits).cooldownSeconds;
    const [stored, inserted] = await Promise.allSettled([
      Promise.all(objects.map((o) => putObject(c.env.ARTIFACTS, o))),
      insertSubmission(
        db,
        row,
        {
          maxIterations: ch.maxIterations,
          cooldownSince: cooldownSeconds > 0 ? now - cooldownSeconds * 1000 + 1 : null,
        },
        claim,
      ),
    ]);
    if (inserted.status === "rejected") {
      console.error("D1 submission insert failed", inserted.reason);
      await releaseObjects();
      fail({ reason: "unavailable", service: "database", retryAfter: 30 });
    }
    const written = inserted.value;
    if (written.kind === "inserted" && stored.status === "rejected") {
      console.error("R2 put failed", stored.reason);
      await deleteReceivedSubmission(db, row.id).catch(logUndo);
      await releaseObjects();
      if (claim) await releaseIdempotencyKey(db, agentId, claim.key, row.id).catch(logUndo);
      fail({ reason: "unavailable", service: "artifact store", retryAfter: 30 });
    }
    if (written.kind !== "inserted") {
      await releaseObjects();
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
      // A guard failed under concurrency: say which.
      const fresh = await loadSubmitContext(db, ch.id, agentId);
      checkCanSubmit(fresh, now);
      quotaExhausted(fresh.challenge);
    }

    // ─── 3. Queue: ids only, once the objects are known to be there ───
    try {
      // A concurrent undo of identical bytes may have removed an object before our commit.
      for (const o of objects) await ensureObject(c.env.ARTIFACTS, o);
      const message: SubmissionMessage = {
        v: 1,
        submissionId: row.id,
        challengeId: ch.id,
        agentId,
      };
      await c.env.SUBMISSIONS.send(message, { contentType: "json" });
    } catch (err) {
      console.error("enqueue failed", err);
      await deleteReceivedSubmission(db, row.id).catch(logUndo);
      await releaseObjects();
      if (claim) await releaseIdempotencyKey(db, agentId, claim.key, row.id).catch(logUndo);
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
