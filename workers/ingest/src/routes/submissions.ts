/**
 * @module ingest/routes/submissions
 * Submitting and reading submissions. Invariants: the key is checked (401/403) before
 * anything else, in the same query that reads the challenge and the agent's standing; cheap
 * checks (rate limit, challenge state, quota, submissions in flight, media type, size,
 * archive signature, claims schema, trace format) run before anything is stored; the write
 * order (D1 batch, then the R2 objects, then the queue, then D1; docs/storage-schema.md)
 * undoes every earlier step when a later one fails; under an `Idempotency-Key`, the first
 * final answer (202, or a verdict on the content: `isStoredUnderIdempotencyKey`) is stored and
 * every retry gets its exact bytes, without the checks running again; another agent's
 * submission answers 404, like a missing one.
 */
import { createRoute, type z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import {
  countSubmissionsInFlight,
  countSubmissionsInFlightBefore,
  findIdempotencyRecord,
  createDb,
  deleteReceivedSubmission,
  findSubmission,
  findRunnerRetryAt,
  findSubmitContext,
  insertSubmission,
  listAgentSubmissions,
  markSubmissionQueued,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
  sha256Hex,
  type Db,
  type NewSubmission,
  type SubmitChallenge,
  type SubmitContext,
} from "@bouts/db";
import { PROBLEM_CONTENT_TYPE, problemFromZodError } from "@bouts/contracts";
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
import { fail, IngestHttpError, isStoredUnderIdempotencyKey, toProblem } from "../errors.ts";
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

/** The parts of a multipart submission as sent, not yet checked. */
type RawParts = {
  archive: File;
  /** SHA-256 of the archive part's bytes. */
  archiveSha: string;
  archiveBytes: Uint8Array;
  claimsText: string | null;
  trace: { bytes: Uint8Array; sha256: string; size: number } | null;
};

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

// A submission settles in seconds to minutes; the agent cannot know which one ends first.
const IN_FLIGHT_RETRY_AFTER_SECONDS = 30;

/**
 * Refuses a submission while the agent already has the most it may have in flight (received,
 * queued or running, all challenges, whichever of its keys sent them).
 */
async function checkInFlight(db: Db, agentId: string, cfg: IngestConfig): Promise<void> {
  const inFlight = await countSubmissionsInFlight(db, agentId);
  if (inFlight >= cfg.maxSubmissionsInFlight) inFlightExhausted(inFlight, cfg);
}

function inFlightExhausted(inFlight: number, cfg: IngestConfig): never {
  fail({
    reason: "submissions-in-flight",
    retryAfter: IN_FLIGHT_RETRY_AFTER_SECONDS,
    inFlight,
    limit: cfg.maxSubmissionsInFlight,
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

/** The archive's size limit on this challenge: the challenge's, within the platform's. */
function archiveLimitOf(cfg: IngestConfig, ch: OpenChallenge): number {
  return Math.min(ch.parsedLimits.maxArchiveBytes ?? cfg.maxArchiveBytes, cfg.maxArchiveBytes);
}

/**
 * Reads the multipart body and splits it into its parts, refusing a body that has no such
 * parts (415, 413 for the whole body, 400); nothing is judged on the parts' content yet.
 */
async function readSubmissionParts(
  request: Request,
  cfg: IngestConfig,
  ch: OpenChallenge,
): Promise<RawParts> {
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data;/i.test(contentType)) {
    fail({
      reason: "unsupported-media-type",
      detail: "Send the submission as multipart/form-data with an `archive` file part.",
    });
  }
  const bodyLimit =
    archiveLimitOf(cfg, ch) + cfg.maxTraceBytes + cfg.maxClaimsBytes + MULTIPART_OVERHEAD;
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
  const traceFile = form.get("trace");
  if (traceFile !== null && !(traceFile instanceof File)) {
    invalid("trace", "the trace must be a file part");
  }
  const claims = form.get("claims");
  const archiveBytes = new Uint8Array(await archive.arrayBuffer());
  const traceBytes = traceFile ? new Uint8Array(await traceFile.arrayBuffer()) : null;
  return {
    archive,
    archiveBytes,
    archiveSha: await sha256Hex(archiveBytes),
    claimsText: claims === null ? null : typeof claims === "string" ? claims : await claims.text(),
    trace: traceBytes && {
      bytes: traceBytes,
      sha256: await sha256Hex(traceBytes),
      size: traceBytes.byteLength,
    },
  };
}

/**
 * Judges the parts' content (sizes, the archive's signature and the runner's own validator,
 * the claims schema, the trace format); nothing is stored yet. The same parts always get the
 * same verdict on a challenge, which is what lets a refusal be replayed under its key.
 */
async function checkSubmissionParts(
  raw: RawParts,
  cfg: IngestConfig,
  ch: OpenChallenge,
): Promise<SubmissionParts> {
  const archiveLimit = archiveLimitOf(cfg, ch);
  if (raw.archive.size > archiveLimit) {
    fail({ reason: "payload-too-large", what: "archive", limit: archiveLimit });
  }
  const archiveBytes = raw.archiveBytes;
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

  let claimsJson: string | null = null;
  const text = raw.claimsText;
  if (text !== null) {
    if (new TextEncoder().encode(text).byteLength > cfg.maxClaimsBytes) {
      fail({ reason: "payload-too-large", what: "claims part", limit: cfg.maxClaimsBytes });
    }
    let parsedJson: unknown;
    try {
      parsedJson = JSON.parse(text);
    } catch {
      invalid("claims", "the claims part is not valid JSON");
    }
    const parsed = ClaimsSchema.safeParse(parsedJson);
    if (!parsed.success) {
      fail({ reason: "invalid", problem: problemFromZodError(parsed.error, "claims") });
    }
    claimsJson = JSON.stringify(parsed.data);
  }

  let trace: SubmissionParts["trace"] = null;
  if (raw.trace !== null) {
    if (raw.trace.size > cfg.maxTraceBytes) {
      fail({ reason: "payload-too-large", what: "trace", limit: cfg.maxTraceBytes });
    }
    if (raw.trace.size === 0) invalid("trace", "the trace is empty");
    checkTrace(raw.trace.bytes, cfg.maxTraceBytes);
    trace = {
      key: `traces/${raw.trace.sha256}`,
      bytes: raw.trace.bytes,
      sha256: raw.trace.sha256,
      contentType: "application/octet-stream",
    };
  }
  return {
    archive: {
      key: `artifacts/${raw.archiveSha}`,
      bytes: archiveBytes,
      sha256: raw.archiveSha,
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

/**
 * What makes two submit requests "the same body": the challenge and the parts as sent (the
 * archive's and the trace's bytes, the claims' text), known before any of them is judged.
 */
function requestHashOf(challengeId: string, raw: RawParts): Promise<string> {
  return sha256Hex(
    JSON.stringify([challengeId, raw.archiveSha, raw.trace?.sha256 ?? null, raw.claimsText]),
  );
}

/**
 * An answer as the exact bytes stored for its key: the first time, then every replay
 * (`Idempotent-Replayed: true`).
 */
function sendAnswer(status: number, body: string, replayed: boolean): Response {
  const headers = new Headers({
    "Content-Type": status < 400 ? "application/json" : PROBLEM_CONTENT_TYPE,
  });
  if (status < 400) headers.set("Location", (JSON.parse(body) as SubmissionView).url);
  if (replayed) headers.set("Idempotent-Replayed", "true");
  return new Response(body, { status, headers });
}

/**
 * A prebuilt answer as the handler's return. zod-openapi types a handler's answers by what
 * `c.json` builds; the stored bytes are one of this route's answers (the 202 or a problem),
 * so the type is asserted here, once.
 */
function asRouteAnswer(res: Response): never {
  return res as never;
}

/**
 * The answer an earlier request with this key left for a retry with `requestHash`: its stored
 * answer, or its submission once its lease ran out without one; 422 for another body, 409
 * while it is still in flight. Null when there is no live record, or only a dead claim (no
 * submission, lease over) that this request's own claim takes over.
 */
async function answerFromRecord(
  db: Db,
  agentId: string,
  key: string,
  requestHash: string,
  now: number,
  origin: string,
): Promise<Response | null> {
  const record = await findIdempotencyRecord(db, agentId, key);
  if (!record || record.expiresAt < now) return null;
  if (record.requestHash !== requestHash) fail({ reason: "idempotency-mismatch" });
  if (record.state === "done" && record.responseStatus !== null && record.responseBody !== null) {
    return sendAnswer(record.responseStatus, record.responseBody, true);
  }
  if (record.leaseUntil < now) {
    // The request died before recording its answer: answer with its submission, if it left one.
    const linked = record.submissionId ? await findSubmission(db, record.submissionId) : undefined;
    if (!linked) return null;
    return sendAnswer(202, JSON.stringify(submissionToWire(linked, origin)), true);
  }
  fail({
    reason: "idempotency-in-flight",
    retryAfter: Math.max(1, Math.ceil((record.leaseUntil - now) / 1000)),
  });
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
      "retry with the same body replays the first final answer (the 202, or a refusal of " +
      "the content) byte for byte for at least 24 hours.",
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
    // After authentication, so that nobody can spend another agent's budget; before anything
    // is read from the body or stored. Keyed by the agent: its keys share one budget.
    await checkRateLimit(c.env.SUBMIT_RATE_LIMIT, principal, "submissions");
    const ch = openChallengeOf(submitCtx);
    const now = Date.now();
    // A retry of an earlier request (its key is on record) goes on to the idempotency check,
    // which replays, refuses a different body (422) or waits for the first (409), even once
    // the first used the last of the quota, started the cooldown or is itself in flight.
    if (!submitCtx.idempotencyKeyKnown) {
      checkCanSubmit(submitCtx, ch, now);
      await checkRunnerTime(db, agentId, submitCtx.runnerMs, cfg, now);
      await checkInFlight(db, agentId, cfg);
    }
    const raw = await readSubmissionParts(c.req.raw, cfg, ch);
    const origin = new URL(c.req.url).origin;
    const requestHash = idemKey === null ? null : await requestHashOf(ch.id, raw);
    if (idemKey !== null && requestHash !== null && submitCtx.idempotencyKeyKnown) {
      // Before the content is judged again: a stored verdict is replayed, not re-derived.
      const earlier = await answerFromRecord(db, agentId, idemKey, requestHash, now, origin);
      if (earlier) return asRouteAnswer(earlier);
    }
    let parts: SubmissionParts;
    try {
      parts = await checkSubmissionParts(raw, cfg, ch);
    } catch (err) {
      if (
        idemKey === null ||
        requestHash === null ||
        !(err instanceof IngestHttpError) ||
        !isStoredUnderIdempotencyKey(err.error)
      ) {
        throw err;
      }
      // A verdict on the content: the key keeps it, and every retry gets these bytes.
      const { problem } = toProblem(err.error);
      const body = JSON.stringify(problem);
      const heldByAnother = await recordIdempotentAnswer(db, {
        agentId,
        key: idemKey,
        requestHash,
        status: problem.status,
        body,
        now,
        expiresAt: now + cfg.idempotencyTtlMs,
      }).then(
        (recorded) => !recorded,
        (err: unknown) => {
          // Unrecorded, a retry judges the same content again, to the same verdict.
          console.error("could not record the refusal under its key", err);
          return false;
        },
      );
      if (heldByAnother) {
        // A concurrent request with the key got there first: its answer is the key's.
        const earlier = await answerFromRecord(db, agentId, idemKey, requestHash, now, origin);
        if (earlier) return asRouteAnswer(earlier);
      }
      return asRouteAnswer(sendAnswer(problem.status, body, false));
    }

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
      idemKey === null || requestHash === null
        ? null
        : {
            agentId,
            key: idemKey,
            requestHash,
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
      const earlier = await answerFromRecord(
        db,
        agentId,
        claim.key,
        claim.requestHash,
        now,
        origin,
      );
      if (earlier) return asRouteAnswer(earlier);
      // The record went away or died between our claim and this read: let the client retry.
      fail({ reason: "idempotency-in-flight", retryAfter: 1 });
    }
    if (written.kind !== "inserted") {
      // A guard failed under concurrency: say which.
      const fresh = await findSubmitContext(db, principal.keyId, ch.id, null, now);
      if (fresh) checkCanSubmit(fresh, openChallengeOf(fresh), now);
      quotaExhausted(ch);
    }
    // The exact in-flight cap: the check above raced with this agent's other requests. Of
    // those, the rows committed first keep their place; a row that finds the cap already
    // filled ahead of it is undone before anything acts on it (no object, no message yet).
    const ahead = await countSubmissionsInFlightBefore(db, agentId, row.id);
    if (ahead >= cfg.maxSubmissionsInFlight) {
      await deleteReceivedSubmission(db, row.id).catch(logUndo);
      if (claim) await releaseIdempotencyKey(db, agentId, claim.key, row.id).catch(logUndo);
      inFlightExhausted(ahead, cfg);
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
    // One serialization: the bytes recorded for the key are the bytes sent now.
    const body = JSON.stringify(view);
    try {
      await markSubmissionQueued(
        db,
        row.id,
        queuedAt,
        claim ? { agentId, key: claim.key, status: 202, body } : null,
      );
    } catch (err) {
      // The message is out: the consumer accepts a row still marked received, and a retry
      // with the same key finds the linked submission once the lease ends.
      console.error("could not mark submission queued", err);
    }
    return asRouteAnswer(sendAnswer(202, body, false));
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
