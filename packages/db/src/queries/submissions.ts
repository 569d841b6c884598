/**
 * @module db/queries/submissions
 * Submissions. Invariants: the iteration number is computed inside the INSERT (max + 1 for
 * the agent × challenge, unique index as a backstop), under the same statement's guards
 * (challenge published, agent entered, quota and cooldown), so no interleaving of requests
 * can skip, reuse or exceed an iteration. A submission that failed on our side
 * (`failure_code = 'infrastructure'`), or whose own dependencies were refused
 * (`'dependencies'`), does not count against the quota. Status moves forward
 * only, except an operator's re-judgement of such a failure (audited in the same batch).
 */
import { and, asc, desc, eq, inArray, lt, or } from "drizzle-orm";
import type { Result } from "@bouts/result";
import { challengeVersions } from "../schema-versions.ts";
import type { Db } from "../db.ts";
import type { KeyCredentials } from "../keys.ts";
import { AUDIT_COLUMNS } from "./audit.ts";
import { IDEMPOTENCY_TAKEOVER_SQL } from "./idempotency.ts";
import {
  challenges,
  submissionRejudges,
  submissions,
  type ChallengeRow,
  type ChallengeStatus,
  type KeyRole,
  type SubmissionRejudgeRow,
  type SubmissionRow,
  type SubmissionStatus,
} from "../schema.ts";

/** A new submission as the ingest API writes it; the iteration is assigned by SQL. */
export type NewSubmission = Omit<
  SubmissionRow,
  | "iteration"
  | "status"
  | "failureReason"
  | "failureCode"
  | "queuedAt"
  | "runningAt"
  | "scoredAt"
  | "failedAt"
  | "waitingReason"
  | "waitingSince"
  | "retryAt"
  | "publishedAt"
>;

/** The conditions under which the insert may happen, checked in the same statement. */
export type SubmissionGuard = {
  maxIterations: number;
  /**
   * Fewer than this many of the agent's submissions (all challenges) in flight (`received`,
   * `queued`, `running`): the in-flight cap, checked inside the insert.
   */
  maxInFlight: number;
  /** No earlier submission of this agent on this challenge at or after this time. */
  cooldownSince: number | null;
};

/** The idempotency claim to make in the same transaction as the submission. */
export type IdempotencyClaimInput = {
  agentId: string;
  key: string;
  requestHash: string;
  leaseUntil: number;
  expiresAt: number;
};

/** What the submission batch did. */
export type InsertSubmissionResult =
  /** The row exists, with this iteration (and the idempotency record names it). */
  | { kind: "inserted"; iteration: number }
  /** A guard refused it (closed, not entered, quota, in flight, cooldown); nothing was written. */
  | { kind: "refused" }
  /** The idempotency key belongs to an earlier request; nothing was written. */
  | { kind: "duplicate" };

/**
 * Writes a submission in one D1 batch (one transaction): claims the idempotency key (or
 * takes over a record that expired, or whose request died in flight without leaving its
 * submission), inserts the row with its iteration (max + 1) only if the
 * guards hold and the claim is ours, and drops the claim again when the row was refused.
 */
export async function insertSubmission(
  db: Db,
  row: NewSubmission,
  guard: SubmissionGuard,
  claim: IdempotencyClaimInput | null,
): Promise<InsertSubmissionResult> {
  // Raw D1 statements: drizzle's batch does not take raw INSERT … SELECT statements.
  const mine = "agent_id = ?2 AND challenge_id = ?3";
  const cooldown =
    guard.cooldownSince === null
      ? ""
      : ` AND NOT EXISTS (SELECT 1 FROM submissions WHERE ${mine} AND received_at >= ?14)`;
  const ours = claim
    ? ` AND EXISTS (SELECT 1 FROM idempotency_keys WHERE agent_id = ?2 AND key = ?${
        guard.cooldownSince === null ? 14 : 15
      } AND submission_id = ?1)`
    : "";
  const insert = db.$client
    .prepare(
      `INSERT INTO submissions (id, agent_id, challenge_id, iteration, artifact_sha256,
        artifact_key, artifact_size, artifact_type, claims, trace_key, trace_sha256, status,
        received_at)
      SELECT ?1, ?2, ?3, (SELECT COALESCE(MAX(iteration), 0) + 1 FROM submissions WHERE ${mine}),
        ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'received', ?11
      WHERE EXISTS (SELECT 1 FROM challenges WHERE id = ?3 AND status = 'published')
        AND EXISTS (SELECT 1 FROM entries WHERE ${mine})
        AND (SELECT COUNT(*) FROM submissions WHERE ${mine} AND ${COUNTS_AGAINST_QUOTA}) < ?12
        AND (SELECT COUNT(*) FROM submissions WHERE agent_id = ?2
          AND status IN ('received', 'queued', 'running')) < ?13${cooldown}${ours}
      RETURNING iteration`,
    )
    .bind(
      row.id,
      row.agentId,
      row.challengeId,
      row.artifactSha256,
      row.artifactKey,
      row.artifactSize,
      row.artifactType,
      row.claims,
      row.traceKey,
      row.traceSha256,
      row.receivedAt,
      guard.maxIterations,
      guard.maxInFlight,
      ...(guard.cooldownSince === null ? [] : [guard.cooldownSince]),
      ...(claim ? [claim.key] : []),
    );
  if (!claim) {
    const [res] = await db.$client.batch<{ iteration: number }>([insert]);
    const iteration = res?.results[0]?.iteration;
    return iteration === undefined ? { kind: "refused" } : { kind: "inserted", iteration };
  }
  const [claimed, inserted] = await db.$client.batch<{ iteration: number }>([
    db.$client
      .prepare(
        `INSERT INTO idempotency_keys (agent_id, key, request_hash, state, submission_id,
          created_at, lease_until, expires_at)
        VALUES (?1, ?2, ?3, 'in-flight', ?4, ?5, ?6, ?7)
        ON CONFLICT (agent_id, key) DO UPDATE SET request_hash = excluded.request_hash,
          state = 'in-flight', submission_id = excluded.submission_id,
          response_status = NULL, response_body = NULL, created_at = excluded.created_at,
          lease_until = excluded.lease_until, expires_at = excluded.expires_at
        WHERE ${IDEMPOTENCY_TAKEOVER_SQL}`,
      )
      .bind(
        claim.agentId,
        claim.key,
        claim.requestHash,
        row.id,
        row.receivedAt,
        claim.leaseUntil,
        claim.expiresAt,
      ),
    insert,
    db.$client
      .prepare(
        `DELETE FROM idempotency_keys WHERE agent_id = ?1 AND key = ?2 AND submission_id = ?3
          AND NOT EXISTS (SELECT 1 FROM submissions WHERE id = ?3)`,
      )
      .bind(claim.agentId, claim.key, row.id),
  ]);
  const iteration = inserted?.results[0]?.iteration;
  if (iteration !== undefined) return { kind: "inserted", iteration };
  return (claimed?.meta.changes ?? 0) > 0 ? { kind: "refused" } : { kind: "duplicate" };
}

// A failure on our side never costs the agent an iteration, and neither does a submission whose
// own dependencies were refused or did not install (it was never run: issue 37 asks that it
// cost none). Only failed rows carry a code, and `IS NOT` keeps a null code counted.
const countsAgainstQuota = (alias = "") =>
  `${alias}failure_code IS NOT 'infrastructure' AND ${alias}failure_code IS NOT 'dependencies'`;
const COUNTS_AGAINST_QUOTA = countsAgainstQuota();

/** The columns of a challenge that a submit checks. */
export type SubmitChallenge = Pick<
  ChallengeRow,
  "id" | "status" | "maxIterations" | "limits" | "closesAt"
> & {
  /** The module the bundle's interface loads from a submission (`interface.module`), or null. */
  interfaceModule: string | null;
  /** The bundle's `dependencies` as stored (JSON text), or null without a bundle. */
  dependencies: string | null;
  /** The bundle's `runtime`, or null without a bundle. */
  runtime: string | null;
};

/** What a submit needs to know, read at once: the caller's key, the challenge, and the key's agent on it. */
export type SubmitContext = {
  key: KeyCredentials;
  /** Undefined when no challenge has this id or slug. */
  challenge: SubmitChallenge | undefined;
  entered: boolean;
  /** Submissions that count against the quota (failures on our side do not). */
  submissions: number;
  lastSubmittedAt: number | null;
  /** The agent already holds an unexpired record of the request's `Idempotency-Key`. */
  idempotencyKeyKnown: boolean;
  /** The agent's runner time (ms, all challenges) since the usage window's start. */
  runnerMs: number;
};

type SubmitContextRow = {
  key_id: string;
  role: KeyRole;
  agent_id: string | null;
  operator_id: string | null;
  secret_hash: string;
  revoked_at: number | null;
  challenge_id: string | null;
  status: ChallengeStatus | null;
  max_iterations: number | null;
  limits: string | null;
  closes_at: number | null;
  interface_module: string | null;
  dependencies: string | null;
  runtime: string | null;
  entered: number;
  count: number;
  last: number | null;
  key_known: number;
  runner_ms: number;
};

// One statement, so a submit authenticates and reads its context in a single round trip. The
// key row decides everything else: no key, no row; the challenge columns are null when no
// challenge matches; an operator key (agent_id null) counts as not entered.
const SUBMIT_CONTEXT_SQL = `SELECT k.id AS key_id, k.role, k.agent_id, k.operator_id, k.secret_hash,
    k.revoked_at, c.id AS challenge_id, c.status, c.max_iterations, c.limits, c.closes_at,
    json_extract(c.bundle_manifest, '$.interface.module') AS interface_module,
    json_extract(c.bundle_manifest, '$.dependencies') AS dependencies,
    json_extract(c.bundle_manifest, '$.runtime') AS runtime,
    EXISTS (SELECT 1 FROM entries e WHERE e.agent_id = k.agent_id AND e.challenge_id = c.id)
      AS entered,
    (SELECT COUNT(*) FROM submissions s WHERE s.agent_id = k.agent_id AND s.challenge_id = c.id
      AND ${countsAgainstQuota("s.")}) AS count,
    (SELECT MAX(s.received_at) FROM submissions s
      WHERE s.agent_id = k.agent_id AND s.challenge_id = c.id) AS last,
    EXISTS (SELECT 1 FROM idempotency_keys i
      WHERE i.agent_id = k.agent_id AND i.key = ?3 AND i.expires_at >= ?4) AS key_known,
    (SELECT COALESCE(SUM(u.runner_ms), 0) FROM runner_usage u
      WHERE u.agent_id = k.agent_id AND u.recorded_at > ?5) AS runner_ms
  FROM api_keys k LEFT JOIN challenges c ON c.id = ?2 OR c.slug = ?2
  WHERE k.id = ?1
  LIMIT 1`;

/**
 * Reads, in one query, the API key `keyId` (revoked or not: the caller checks the hash and
 * `revokedAt`) and the challenge `idOrSlug` with the key's agent's entry, submission count
 * and latest submission time there, and whether the agent holds a record of `idempotencyKey`
 * that has not expired at `now`, and the agent's runner time since `usageSince`. Undefined
 * when no key has this id.
 */
export async function findSubmitContext(
  db: Db,
  keyId: string,
  idOrSlug: string,
  idempotencyKey: string | null,
  now: number,
  usageSince: number = now,
): Promise<SubmitContext | undefined> {
  const row = await db.$client
    .prepare(SUBMIT_CONTEXT_SQL)
    .bind(keyId, idOrSlug, idempotencyKey, now, usageSince)
    .first<SubmitContextRow>();
  if (!row) return undefined;
  const challenge =
    row.challenge_id === null ||
    row.status === null ||
    row.max_iterations === null ||
    row.limits === null
      ? undefined
      : {
          id: row.challenge_id,
          status: row.status,
          maxIterations: row.max_iterations,
          limits: row.limits,
          closesAt: row.closes_at,
          interfaceModule: row.interface_module,
          dependencies: row.dependencies,
          runtime: row.runtime,
        };
  return {
    key: {
      id: row.key_id,
      role: row.role,
      agentId: row.agent_id,
      operatorId: row.operator_id,
      secretHash: row.secret_hash,
      revokedAt: row.revoked_at,
    },
    challenge,
    entered: challenge !== undefined && row.agent_id !== null && Boolean(row.entered),
    submissions: row.count,
    lastSubmittedAt: row.last,
    idempotencyKeyKnown: Boolean(row.key_known),
    runnerMs: row.runner_ms,
  };
}

/** Deletes a submission that was never enqueued (undo of a failed submit). */
export async function deleteReceivedSubmission(db: Db, id: string): Promise<void> {
  await db
    .delete(submissions)
    .where(and(eq(submissions.id, id), eq(submissions.status, "received")));
}

/** Submissions still `received` since before `before` (their request died), oldest first. */
export async function findStaleReceivedSubmissions(
  db: Db,
  before: number,
  limit: number,
): Promise<SubmissionRow[]> {
  return db
    .select()
    .from(submissions)
    .where(and(eq(submissions.status, "received"), lt(submissions.receivedAt, before)))
    .orderBy(asc(submissions.receivedAt))
    .limit(limit)
    .all();
}

/** Finds a submission by id. */
export async function findSubmission(db: Db, id: string): Promise<SubmissionRow | undefined> {
  return db.select().from(submissions).where(eq(submissions.id, id)).get();
}

/** Lists an agent's submissions on a challenge, newest iteration first. */
export async function listAgentSubmissions(
  db: Db,
  agentId: string,
  challengeId: string,
): Promise<SubmissionRow[]> {
  return db
    .select()
    .from(submissions)
    .where(and(eq(submissions.agentId, agentId), eq(submissions.challengeId, challengeId)))
    .orderBy(desc(submissions.iteration))
    .all();
}

/** Whether any submission, challenge or challenge version still references this R2 key. */
export async function isObjectReferenced(db: Db, key: string): Promise<boolean> {
  const [subs, bundles, versions] = await db.batch([
    db
      .select({ id: submissions.id })
      .from(submissions)
      .where(or(eq(submissions.artifactKey, key), eq(submissions.traceKey, key)))
      .limit(1),
    db.select({ id: challenges.id }).from(challenges).where(eq(challenges.bundleKey, key)).limit(1),
    db
      .select({ id: challengeVersions.challengeId })
      .from(challengeVersions)
      .where(eq(challengeVersions.bundleKey, key))
      .limit(1),
  ]);
  return subs.length > 0 || bundles.length > 0 || versions.length > 0;
}

const TIMESTAMP_COLUMN = {
  received: "receivedAt",
  queued: "queuedAt",
  running: "runningAt",
  waiting: "waitingSince",
  scored: "scoredAt",
  failed: "failedAt",
} as const satisfies Record<SubmissionStatus, keyof SubmissionRow>;

/** The statuses each status may follow: the lifecycle only moves forward. */
const ALLOWED_FROM: Record<SubmissionStatus, readonly SubmissionStatus[]> = {
  received: [],
  queued: ["received"],
  running: ["received", "queued", "waiting"],
  waiting: ["running"],
  scored: ["running"],
  failed: ["received", "queued", "running", "waiting"],
};

/**
 * Moves a submission to `to`, stamping that status's time, only from a status that may
 * precede it. Returns false when the submission is missing or already past that point.
 */
export async function transitionSubmission(
  db: Db,
  id: string,
  to: SubmissionStatus,
  now: number,
  failureReason: string | null = null,
): Promise<boolean> {
  const from = ALLOWED_FROM[to];
  if (from.length === 0) return false;
  const res = await db
    .update(submissions)
    .set({
      status: to,
      [TIMESTAMP_COLUMN[to]]: now,
      ...(to === "failed" ? { failureReason: failureReason ?? "unknown" } : {}),
    })
    .where(and(eq(submissions.id, id), inArray(submissions.status, [...from])));
  return res.meta.changes > 0;
}

/** The idempotency answer to record together with a status change. */
export type IdempotencyAnswer = { agentId: string; key: string; status: number; body: string };

/**
 * Marks a received submission queued and, in the same batch, records the idempotent answer
 * of the request that created it.
 */
export async function markSubmissionQueued(
  db: Db,
  id: string,
  now: number,
  answer: IdempotencyAnswer | null,
): Promise<void> {
  // Raw statements: this runs on every submit, and their SQL never changes.
  const queued = db.$client
    .prepare(
      "UPDATE submissions SET status = 'queued', queued_at = ?2 WHERE id = ?1 AND status = 'received'",
    )
    .bind(id, now);
  if (!answer) {
    await queued.run();
    return;
  }
  await db.$client.batch([
    queued,
    db.$client
      .prepare(
        `UPDATE idempotency_keys SET state = 'done', response_status = ?3, response_body = ?4
          WHERE agent_id = ?1 AND key = ?2`,
      )
      .bind(answer.agentId, answer.key, answer.status, answer.body),
  ]);
}

/** The outcome of an operator's re-judgement. */
export type RejudgeResult = Result<
  { submission: SubmissionRow },
  { reason: "not-found" } | { reason: "not-rejudgeable"; status: SubmissionStatus }
>;

/** An operator's request to run a failed submission again. */
export interface RejudgeRequest {
  /** The audit record's id. */
  id: string;
  submissionId: string;
  operatorId: string;
  reason: string;
  now: number;
}

/**
 * Re-queues a submission that failed on our side (`infrastructure`), and records who asked,
 * when and why, in one batch: the audit row is written only if the submission is such a
 * failure, and the reset happens only if the audit row was written. The submission goes back
 * to `queued` with its failure, wait and publication cleared; its attempt count is kept, so run
 * ids stay unique. The caller sends the queue message (the reconciler re-sends a lost one).
 */
/** How many times operators re-ran a submission (its rejudge audit rows). */
export async function countRejudges(db: Db, submissionId: string): Promise<number> {
  const row = await db.$client
    .prepare("SELECT COUNT(*) AS n FROM submission_rejudges WHERE submission_id = ?1")
    .bind(submissionId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export async function rejudgeSubmission(db: Db, r: RejudgeRequest): Promise<RejudgeResult> {
  const d1 = db.$client;
  const rejudgeable = "id = ?1 AND status = 'failed' AND failure_code = 'infrastructure'";
  const [audit] = await d1.batch([
    d1
      .prepare(
        `INSERT INTO submission_rejudges (id, submission_id, operator_id, reason,
           previous_failure_code, previous_failure_reason, requested_at)
         SELECT ?2, id, ?3, ?4, failure_code, failure_reason, ?5 FROM submissions WHERE ${rejudgeable}`,
      )
      .bind(r.submissionId, r.id, r.operatorId, r.reason.slice(0, 2000), r.now),
    // The `rejudged` event, read from the rejudge row this batch just wrote (if it did).
    d1
      .prepare(
        `INSERT OR IGNORE INTO audit_events (${AUDIT_COLUMNS})
         SELECT 'rejudged:' || r.id, s.challenge_id, s.id, s.agent_id, 'rejudged', 'submission', 'operator',
           r.operator_id, r.reason,
           json_object('status', 'failed', 'failureCode', r.previous_failure_code, 'failureReason', r.previous_failure_reason),
           json_object('status', 'queued'), r.requested_at
         FROM submission_rejudges r JOIN submissions s ON s.id = r.submission_id WHERE r.id = ?2`,
      )
      .bind(r.submissionId, r.id),
    d1
      .prepare(
        `UPDATE submissions SET status = 'queued', queued_at = ?3, failure_reason = NULL,
           failure_code = NULL, failed_at = NULL, waiting_reason = NULL, waiting_since = NULL,
           retry_at = NULL, published_at = NULL
         WHERE ${rejudgeable} AND EXISTS (SELECT 1 FROM submission_rejudges WHERE id = ?2)`,
      )
      .bind(r.submissionId, r.id, r.now),
    d1
      .prepare(
        `UPDATE scoring_runs SET lease_until = 0, last_error = NULL, updated_at = ?3
         WHERE submission_id = ?1 AND EXISTS (SELECT 1 FROM submission_rejudges WHERE id = ?2)`,
      )
      .bind(r.submissionId, r.id, r.now),
  ]);
  const row = await findSubmission(db, r.submissionId);
  if (!row) return { ok: false, error: { reason: "not-found" } };
  if ((audit?.meta.changes ?? 0) === 0)
    return { ok: false, error: { reason: "not-rejudgeable", status: row.status } };
  return { ok: true, value: { submission: row } };
}

/** The audit log of a submission's re-judgements, oldest first. */
export async function listSubmissionRejudges(
  db: Db,
  submissionId: string,
): Promise<SubmissionRejudgeRow[]> {
  return db
    .select()
    .from(submissionRejudges)
    .where(eq(submissionRejudges.submissionId, submissionId))
    .orderBy(asc(submissionRejudges.requestedAt))
    .all();
}
