/**
 * @module ingest/accept-submission
 * The submit saga (`POST /v1/challenges/{id}/submissions`) once the key, the agent's role, the
 * `Idempotency-Key` format and the submit rate limit have passed. Invariants: cheap checks run
 * before anything is stored; each step undoes every earlier one when it fails; under an
 * `Idempotency-Key`, the first final answer is stored and every retry gets its exact bytes without
 * the checks running again; expected failures are values, for the route to map.
 */
import { pastDeadline } from "./deadline.ts";
import type { z } from "@hono/zod-openapi";
import { submissionMessage } from "@bouts/contracts";
import {
  countSubmissionsInFlight,
  deleteReceivedSubmission,
  findIdempotencyRecord,
  findRunnerRetryAt,
  findSubmission,
  findSubmitContext,
  insertSubmission,
  markSubmissionQueued,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
  sha256Hex,
  type Db,
  type NewSubmission,
  type SubmitChallenge,
  type SubmitContext,
} from "@bouts/db";
import { parseStoredLimits } from "./challenge-config.ts";
import type { IngestConfig } from "./config.ts";
import { isStoredUnderIdempotencyKey, toProblem, type IngestError } from "./errors.ts";
import { ok, refuse, type Result } from "./result.ts";
import type { SubmissionSchema } from "./schemas.ts";
import { putObject, releaseObjectQuietly } from "./storage.ts";
import {
  checkSubmissionParts,
  readSubmissionParts,
  type OpenChallenge,
  type RawParts,
  type SubmissionParts,
} from "./submission-parts.ts";
import { submissionToWire } from "./views.ts";

const IDEMPOTENCY_LEASE_MS = 60_000;
// A submission settles in seconds to minutes; the agent cannot know which one ends first.
const IN_FLIGHT_RETRY_AFTER_SECONDS = 30;

/** What a submit brings to the saga, once its key, role and rate limit have passed. */
export interface SubmitRequest {
  agentId: string;
  /** The API key's id, to read the context again after a guard failed under concurrency. */
  keyId: string;
  /** The first read: the challenge, the agent's standing there, its idempotency record. */
  context: SubmitContext;
  /** The request's `Idempotency-Key`, already checked for format; null without one. */
  idempotencyKey: string | null;
  /** The request, whose multipart body is read here. */
  request: Request;
  /** The origin of the submission's URL. */
  origin: string;
}

/**
 * An answer as the exact bytes to send: a 202 with the submission, or a refusal of the content
 * recorded under the request's key; `replayed` when it is the answer of an earlier request.
 */
export interface SubmitAnswer {
  status: number;
  body: string;
  replayed: boolean;
}

/** The bindings the saga writes to. */
export type SubmitBindings = Pick<Env, "ARTIFACTS" | "SUBMISSIONS">;

type SubmissionView = z.infer<typeof SubmissionSchema>;

// ─── The saga ───

/**
 * Accepts a submission: checks (the challenge's state and quota, runner time and submissions in
 * flight, then the body and its parts), stores and queues it (storeSubmission), and answers 202
 * with it; or replays the answer an earlier request with the same `Idempotency-Key` left; or
 * refuses it (the error, or, for a verdict on the content under a key, that verdict as a recorded
 * answer: `isStoredUnderIdempotencyKey`).
 */
export async function acceptSubmission(
  env: SubmitBindings,
  db: Db,
  cfg: IngestConfig,
  req: SubmitRequest,
): Promise<Result<SubmitAnswer>> {
  const { agentId, context, idempotencyKey: idemKey, origin } = req;
  const ch = openChallengeOf(context);
  if (!ch.ok) return ch;
  const now = Date.now();
  // A retry of an earlier request (its key is on record) goes on to the idempotency check,
  // which replays, refuses a different body (422) or waits for the first (409), even once
  // the first used the last of the quota, started the cooldown or is itself in flight.
  if (!context.idempotencyKeyKnown) {
    const allowed = checkCanSubmit(context, ch.value, now);
    if (!allowed.ok) return allowed;
    const runner = await checkRunnerTime(db, agentId, context.runnerMs, cfg, now);
    if (!runner.ok) return runner;
    const inFlight = await checkInFlight(db, agentId, cfg);
    if (!inFlight.ok) return inFlight;
  }
  const raw = await readSubmissionParts(req.request, cfg, ch.value);
  if (!raw.ok) return raw;
  const requestHash = idemKey === null ? null : await requestHashOf(ch.value.id, raw.value);
  const key = idemKey === null || requestHash === null ? null : { idemKey, requestHash };
  if (key && context.idempotencyKeyKnown) {
    // Before the content is judged again: a stored verdict is replayed, not re-derived.
    const earlier = await answerFromRecord(db, agentId, key, now, origin);
    if (!earlier.ok) return earlier;
    if (earlier.value) return ok(earlier.value);
  }
  const parts = await checkSubmissionParts(raw.value, cfg, ch.value);
  if (!parts.ok) {
    if (!key || !isStoredUnderIdempotencyKey(parts.error)) return parts;
    return recordRefusal(db, agentId, key, parts.error, cfg, now, origin);
  }
  return storeSubmission(env, db, cfg, req, ch.value, parts.value, key, now);
}

/**
 * A verdict on the content under a key: the key keeps it, and every retry gets these bytes;
 * if a concurrent request with the key got there first, its answer is the key's.
 */
async function recordRefusal(
  db: Db,
  agentId: string,
  key: { idemKey: string; requestHash: string },
  error: IngestError,
  cfg: IngestConfig,
  now: number,
  origin: string,
): Promise<Result<SubmitAnswer>> {
  const { problem } = toProblem(error);
  const body = JSON.stringify(problem);
  const heldByAnother = await recordIdempotentAnswer(db, {
    agentId,
    key: key.idemKey,
    requestHash: key.requestHash,
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
    const earlier = await answerFromRecord(db, agentId, key, now, origin);
    if (!earlier.ok) return earlier;
    if (earlier.value) return ok(earlier.value);
  }
  return ok({ status: problem.status, body, replayed: false });
}

/**
 * The write order of an accepted submission: D1 batch, R2, the queue, D1 (each undone on failure;
 * docs/storage-schema.md, "Write order of a submission").
 */
async function storeSubmission(
  env: SubmitBindings,
  db: Db,
  cfg: IngestConfig,
  req: SubmitRequest,
  ch: OpenChallenge,
  parts: SubmissionParts,
  key: { idemKey: string; requestHash: string } | null,
  now: number,
): Promise<Result<SubmitAnswer>> {
  const { agentId, origin } = req;
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
  const claim = key && {
    agentId,
    key: key.idemKey,
    requestHash: key.requestHash,
    leaseUntil: now + IDEMPOTENCY_LEASE_MS,
    expiresAt: now + cfg.idempotencyTtlMs,
  };
  const objects = parts.trace ? [parts.archive, parts.trace] : [parts.archive];
  /** Undo of steps 1 and 2: the row, our claim, then the objects no row references. */
  const undo = async () => {
    await deleteReceivedSubmission(db, row.id).catch(logUndo);
    if (claim) await releaseIdempotencyKey(db, agentId, claim.key, row.id).catch(logUndo);
    for (const o of objects) await releaseObjectQuietly(env.ARTIFACTS, db, o);
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
        maxInFlight: cfg.maxSubmissionsInFlight,
        cooldownSince: cooldownSeconds > 0 ? now - cooldownSeconds * 1000 + 1 : null,
      },
      claim,
    );
  } catch (err) {
    console.error("D1 submission insert failed", err);
    return refuse({ reason: "unavailable", service: "database", retryAfter: 30 });
  }
  if (written.kind === "duplicate" && key) {
    const earlier = await answerFromRecord(db, agentId, key, now, origin);
    if (!earlier.ok) return earlier;
    if (earlier.value) return ok(earlier.value);
    // The record went away or died between our claim and this read: let the client retry.
    return refuse({ reason: "idempotency-in-flight", retryAfter: 1 });
  }
  if (written.kind !== "inserted") {
    // A guard failed under concurrency: say which, in the order of the checks above.
    const fresh = await findSubmitContext(db, req.keyId, ch.id, null, now);
    if (fresh) {
      const open = openChallengeOf(fresh);
      if (!open.ok) return open;
      const allowed = checkCanSubmit(fresh, open.value, now);
      if (!allowed.ok) return allowed;
    }
    // The in-flight cap is a guard of the insert: of racing requests, only as many as it
    // allows are written.
    const inFlight = await checkInFlight(db, agentId, cfg);
    if (!inFlight.ok) return inFlight;
    return refuse(quotaExhausted(ch));
  }
  // ─── 2. R2: the objects, once the row that references them is committed ───
  try {
    await Promise.all(objects.map((o) => putObject(env.ARTIFACTS, o)));
  } catch (err) {
    console.error("R2 put failed", err);
    await undo();
    return refuse({ reason: "unavailable", service: "artifact store", retryAfter: 30 });
  }

  // ─── 3. Queue: ids only, once the objects are there ───
  try {
    const message = submissionMessage({ submissionId: row.id, challengeId: ch.id, agentId });
    await env.SUBMISSIONS.send(message, { contentType: "json" });
  } catch (err) {
    console.error("enqueue failed", err);
    await undo();
    return refuse({ reason: "unavailable", service: "submission queue", retryAfter: 30 });
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
  return ok({ status: 202, body, replayed: false });
}

function logUndo(err: unknown) {
  console.error("undo step failed", err);
}

// ─── Checks before anything is read from the body ───

/** The challenge of a submit context; a draft (or missing) challenge is a 404 to agents. */
function openChallengeOf(ctx: SubmitContext): Result<OpenChallenge> {
  const ch = ctx.challenge;
  if (!ch || ch.status === "draft") return refuse({ reason: "not-found", resource: "challenge" });
  return ok({ ...ch, parsedLimits: parseStoredLimits(ch.limits) });
}

/** Refuses the submission early when the challenge's state or quota already forbids it. */
function checkCanSubmit(ctx: SubmitContext, ch: OpenChallenge, now: number): Result<void> {
  if (ch.status !== "published" || pastDeadline(ch, Date.now())) {
    return refuse({ reason: "conflict", detail: "The challenge is closed to new submissions." });
  }
  if (!ctx.entered) {
    return refuse({ reason: "conflict", detail: "Enter the challenge before submitting to it." });
  }
  if (ctx.submissions >= ch.maxIterations) return refuse(quotaExhausted(ch));
  const { cooldownSeconds } = ch.parsedLimits;
  if (cooldownSeconds > 0 && ctx.lastSubmittedAt !== null) {
    const wait = ctx.lastSubmittedAt + cooldownSeconds * 1000 - now;
    if (wait > 0) {
      return refuse({
        reason: "rate-limited",
        retryAfter: Math.ceil(wait / 1000),
        detail: `This challenge allows one submission every ${cooldownSeconds} s.`,
      });
    }
  }
  return ok(undefined);
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
): Promise<Result<void>> {
  if (usedMs < cfg.runnerCeilingMs) return ok(undefined);
  const retryAt = await findRunnerRetryAt(
    db,
    agentId,
    now,
    cfg.runnerWindowMs,
    cfg.runnerCeilingMs,
  );
  if (retryAt === null) return ok(undefined);
  const seconds = (ms: number) => Math.ceil(ms / 1000);
  return refuse({
    reason: "runner-time-exhausted",
    retryAfter: Math.max(1, seconds(retryAt - now)),
    detail:
      `Your submissions used ${seconds(usedMs)} s of runner time in the last ` +
      `${seconds(cfg.runnerWindowMs)} s; each agent may use ${seconds(cfg.runnerCeilingMs)} s ` +
      "across all challenges in that window.",
  });
}

/**
 * Refuses a submission while the agent already has the most it may have in flight (received,
 * queued or running, all challenges, whichever of its keys sent them).
 */
async function checkInFlight(db: Db, agentId: string, cfg: IngestConfig): Promise<Result<void>> {
  const inFlight = await countSubmissionsInFlight(db, agentId);
  if (inFlight >= cfg.maxSubmissionsInFlight) return refuse(inFlightExhausted(inFlight, cfg));
  return ok(undefined);
}

function inFlightExhausted(inFlight: number, cfg: IngestConfig): IngestError {
  return {
    reason: "submissions-in-flight",
    retryAfter: IN_FLIGHT_RETRY_AFTER_SECONDS,
    inFlight,
    limit: cfg.maxSubmissionsInFlight,
  };
}

function quotaExhausted(ch: SubmitChallenge): IngestError {
  return {
    reason: "quota-exhausted",
    // The quota does not reset while the challenge runs: a day is an honest upper bound.
    retryAfter: 86_400,
    detail: `This challenge allows ${ch.maxIterations} submissions per agent; all are used.`,
  };
}

// ─── Idempotency ───

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
 * The answer an earlier request with this key left for a retry with `requestHash`: its stored
 * answer, or its submission once its lease ran out without one; 422 for another body, 409
 * while it is still in flight. Null when there is no live record, or only a dead claim (no
 * submission, lease over) that this request's own claim takes over.
 */
async function answerFromRecord(
  db: Db,
  agentId: string,
  key: { idemKey: string; requestHash: string },
  now: number,
  origin: string,
): Promise<Result<SubmitAnswer | null>> {
  const record = await findIdempotencyRecord(db, agentId, key.idemKey);
  if (!record || record.expiresAt < now) return ok(null);
  if (record.requestHash !== key.requestHash) return refuse({ reason: "idempotency-mismatch" });
  if (record.state === "done" && record.responseStatus !== null && record.responseBody !== null) {
    return ok({ status: record.responseStatus, body: record.responseBody, replayed: true });
  }
  if (record.leaseUntil < now) {
    // The request died before recording its answer: answer with its submission, if it left one.
    const linked = record.submissionId ? await findSubmission(db, record.submissionId) : undefined;
    if (!linked) return ok(null);
    const view: SubmissionView = submissionToWire(linked, origin);
    return ok({ status: 202, body: JSON.stringify(view), replayed: true });
  }
  return refuse({
    reason: "idempotency-in-flight",
    retryAfter: Math.max(1, Math.ceil((record.leaseUntil - now) / 1000)),
  });
}
