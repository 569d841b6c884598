/**
 * @module db/queries/versions
 * Challenge versions and shadow rescoring (docs/design.md §30): the candidate's upload with its
 * rescores, each rescore's lease and outcome, and the discard (the promotion is
 * queries/promotion.ts). Invariants: at most one candidate per challenge is open, checked inside
 * the insert; every multi-row change is one D1 batch of a fixed number of statements.
 */
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../db.ts";
import { prepareAuditEvent, type AuditEventInput } from "./audit.ts";
import {
  challengeVersions,
  rescores,
  type ChallengeVersionRow,
  type RescoreRow,
} from "../schema-versions.ts";

/** The open candidate of a challenge (`rescoring` or `ready`), if any. */
export async function findOpenVersion(
  db: Db,
  challengeId: string,
): Promise<ChallengeVersionRow | null> {
  return (
    (await db
      .select()
      .from(challengeVersions)
      .where(
        and(
          eq(challengeVersions.challengeId, challengeId),
          inArray(challengeVersions.state, ["rescoring", "ready"]),
        ),
      )
      .get()) ?? null
  );
}

/** One version of a challenge, or null. */
export async function findVersion(
  db: Db,
  challengeId: string,
  version: number,
): Promise<ChallengeVersionRow | null> {
  return (
    (await db
      .select()
      .from(challengeVersions)
      .where(
        and(eq(challengeVersions.challengeId, challengeId), eq(challengeVersions.version, version)),
      )
      .get()) ?? null
  );
}

/** Every uploaded version of a challenge, newest first. */
export async function listVersions(db: Db, challengeId: string): Promise<ChallengeVersionRow[]> {
  return db
    .select()
    .from(challengeVersions)
    .where(eq(challengeVersions.challengeId, challengeId))
    .orderBy(desc(challengeVersions.version))
    .all();
}

/** The highest version number a challenge has had (its live one when none was uploaded). */
export async function findLatestVersionNumber(db: Db, challengeId: string): Promise<number | null> {
  const row = await db
    .select({ version: challengeVersions.version })
    .from(challengeVersions)
    .where(eq(challengeVersions.challengeId, challengeId))
    .orderBy(desc(challengeVersions.version))
    .limit(1)
    .get();
  return row?.version ?? null;
}

/** The counted submissions a new candidate re-runs. */
export interface RescoreTarget {
  submissionId: string;
  agentId: string;
}

/**
 * Records an uploaded version and, when its QA passed, a queued rescore per target and its
 * `version-uploaded` event, in one batch. Written only while the challenge is published, still
 * on `row.baseVersion`, and has no other open candidate; returns whether it was written.
 */
export async function insertVersion(
  db: Db,
  row: ChallengeVersionRow,
  targets: readonly RescoreTarget[],
  event: AuditEventInput,
): Promise<boolean> {
  const d1 = db.$client;
  const results = await d1.batch([
    d1
      .prepare(
        `INSERT INTO challenge_versions (challenge_id, version, base_version, bundle_key, bundle_sha256,
           bundle_manifest, qa_report, qa_passed, state, note, created_by, created_at)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12
         WHERE EXISTS (SELECT 1 FROM challenges WHERE id = ?1 AND status = 'published' AND version = ?3)
           AND NOT EXISTS (SELECT 1 FROM challenge_versions
             WHERE challenge_id = ?1 AND state IN ('rescoring', 'ready'))
         ON CONFLICT DO NOTHING`,
      )
      .bind(
        row.challengeId,
        row.version,
        row.baseVersion,
        row.bundleKey,
        row.bundleSha256,
        row.bundleManifest,
        row.qaReport,
        row.qaPassed ? 1 : 0,
        row.state,
        row.note,
        row.createdBy,
        row.createdAt,
      ),
    d1
      .prepare(
        `INSERT OR IGNORE INTO rescores (challenge_id, version, submission_id, agent_id, state, queued_at)
         SELECT ?1, ?2, json_extract(t.value, '$.submissionId'), json_extract(t.value, '$.agentId'), 'queued', ?3
         FROM json_each(?4) t
         WHERE EXISTS (SELECT 1 FROM challenge_versions
           WHERE challenge_id = ?1 AND version = ?2 AND state = 'rescoring' AND created_at = ?3)`,
      )
      .bind(row.challengeId, row.version, row.createdAt, JSON.stringify(targets)),
    // A candidate with nothing to rescore is ready at once.
    d1
      .prepare(
        `UPDATE challenge_versions SET state = 'ready'
         WHERE challenge_id = ?1 AND version = ?2 AND state = 'rescoring' AND created_at = ?3
           AND NOT EXISTS (SELECT 1 FROM rescores WHERE challenge_id = ?1 AND version = ?2)`,
      )
      .bind(row.challengeId, row.version, row.createdAt),
    prepareAuditEvent(
      d1,
      event,
      "EXISTS (SELECT 1 FROM challenge_versions WHERE challenge_id = ?2 AND version = ?13 AND created_at = ?14)",
      [row.version, row.createdAt],
    ),
  ]);
  return (results[0]?.meta.changes ?? 0) > 0;
}

/** The rescores of one version, by submission id. */
export async function listRescores(
  db: Db,
  challengeId: string,
  version: number,
): Promise<RescoreRow[]> {
  return db
    .select()
    .from(rescores)
    .where(and(eq(rescores.challengeId, challengeId), eq(rescores.version, version)))
    .orderBy(asc(rescores.submissionId))
    .all();
}

/** Rescores counted by state, as the version views show them. */
export function countRescores(rows: readonly Pick<RescoreRow, "state">[]) {
  const count = (state: RescoreRow["state"]) => rows.filter((r) => r.state === state).length;
  return {
    total: rows.length,
    queued: count("queued"),
    running: count("running"),
    scored: count("scored"),
    failed: count("failed"),
  };
}

/** One rescore, or null. */
export async function findRescore(db: Db, key: RescoreKey): Promise<RescoreRow | null> {
  return (
    (await db
      .select()
      .from(rescores)
      .where(
        and(
          eq(rescores.challengeId, key.challengeId),
          eq(rescores.version, key.version),
          eq(rescores.submissionId, key.submissionId),
        ),
      )
      .get()) ?? null
  );
}

/** Which rescore: the candidate and the submission. */
export interface RescoreKey {
  challengeId: string;
  version: number;
  submissionId: string;
}

/**
 * Takes the lease on a queued rescore (or one whose lease expired) of a version still being
 * rescored, and only while fewer than `maxRunning` rescores (across challenges) hold a live
 * lease: one statement, so of concurrent claims at most `maxRunning` win, and a rescore of a
 * discarded version never starts. Returns the attempt number, or null when it is not to be run
 * now ({@link isRescoreClaimable} tells a full lane from a rescore that is gone).
 */
export async function claimRescore(
  db: Db,
  key: RescoreKey,
  now: number,
  leaseMs: number,
  maxRunning: number,
): Promise<number | null> {
  const row = await db.$client
    .prepare(
      `UPDATE rescores SET state = 'running', attempts = attempts + 1, lease_until = ?4
       WHERE challenge_id = ?1 AND version = ?2 AND submission_id = ?3
         AND (state = 'queued' OR (state = 'running' AND lease_until < ?5))
         AND EXISTS (SELECT 1 FROM challenge_versions
           WHERE challenge_id = ?1 AND version = ?2 AND state = 'rescoring')
         AND (SELECT COUNT(*) FROM rescores WHERE state = 'running' AND lease_until >= ?5) < ?6
       RETURNING attempts`,
    )
    .bind(key.challengeId, key.version, key.submissionId, now + leaseMs, now, maxRunning)
    .first<{ attempts: number }>();
  return row?.attempts ?? null;
}

/**
 * Whether a rescore could still be claimed (queued, or running past its lease, on a version
 * still being rescored): after a refused {@link claimRescore}, true means the lane was full.
 */
export async function isRescoreClaimable(db: Db, key: RescoreKey, now: number): Promise<boolean> {
  const row = await db.$client
    .prepare(
      `SELECT 1 AS yes FROM rescores
       WHERE challenge_id = ?1 AND version = ?2 AND submission_id = ?3
         AND (state = 'queued' OR (state = 'running' AND lease_until < ?4))
         AND EXISTS (SELECT 1 FROM challenge_versions
           WHERE challenge_id = ?1 AND version = ?2 AND state = 'rescoring')`,
    )
    .bind(key.challengeId, key.version, key.submissionId, now)
    .first<{ yes: number }>();
  return row !== null;
}

/** How many rescores hold a live lease now (across challenges). */
export async function countRunningRescores(db: Db, now: number): Promise<number> {
  const row = await db.$client
    .prepare("SELECT COUNT(*) AS n FROM rescores WHERE state = 'running' AND lease_until >= ?1")
    .bind(now)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** How many live submissions wait for or hold a runner (`queued` or `running`). */
export async function countLiveBacklog(db: Db): Promise<number> {
  const row = await db.$client
    .prepare("SELECT COUNT(*) AS n FROM submissions WHERE status IN ('queued', 'running')")
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The guard of a rescore's writes: its version (?1, ?2) is still being rescored. */
const STILL_RESCORING = `EXISTS (SELECT 1 FROM challenge_versions
  WHERE challenge_id = ?1 AND version = ?2 AND state = 'rescoring')`;

/** A rescore's outcome. */
export type RescoreOutcome =
  | {
      state: "scored";
      scoreWrite: string;
      fullScore: string | null;
      changedTests: string;
      finalRounded: number;
      finalUnrounded: string;
    }
  | { state: "failed"; error: string };

/**
 * Settles a running rescore and, when it was the last one pending, marks the version `ready`,
 * in one batch. Only while its version is still being rescored: a rescore whose version was
 * discarded meanwhile writes no outcome, and is released instead (`failed`, lease cleared, so
 * it no longer holds the rescore lane). Returns whether this call settled it with `outcome`.
 */
export async function settleRescore(
  db: Db,
  key: RescoreKey,
  outcome: RescoreOutcome,
  now: number,
): Promise<boolean> {
  const d1 = db.$client;
  const scored = outcome.state === "scored" ? outcome : null;
  const results = await d1.batch([
    d1
      .prepare(
        `UPDATE rescores SET state = ?4, lease_until = 0, settled_at = ?5, error = ?6,
           score_write = ?7, full_score = ?8, changed_tests = ?9, final_rounded = ?10, final_unrounded = ?11
         WHERE challenge_id = ?1 AND version = ?2 AND submission_id = ?3 AND state = 'running'
           AND ${STILL_RESCORING}`,
      )
      .bind(
        key.challengeId,
        key.version,
        key.submissionId,
        outcome.state,
        now,
        outcome.state === "failed" ? outcome.error.slice(0, 2000) : null,
        scored?.scoreWrite ?? null,
        scored?.fullScore ?? null,
        scored?.changedTests ?? null,
        scored?.finalRounded ?? null,
        scored?.finalUnrounded ?? null,
      ),
    d1
      .prepare(
        `UPDATE rescores SET state = 'failed', lease_until = 0, settled_at = ?4,
           error = 'the version was discarded while this rescore ran'
         WHERE challenge_id = ?1 AND version = ?2 AND submission_id = ?3 AND state = 'running'
           AND NOT ${STILL_RESCORING}`,
      )
      .bind(key.challengeId, key.version, key.submissionId, now),
    d1
      .prepare(
        `UPDATE challenge_versions SET state = 'ready'
         WHERE challenge_id = ?1 AND version = ?2 AND state = 'rescoring'
           AND NOT EXISTS (SELECT 1 FROM rescores WHERE challenge_id = ?1 AND version = ?2
             AND state IN ('queued', 'running'))`,
      )
      .bind(key.challengeId, key.version),
  ]);
  return (results[0]?.meta.changes ?? 0) > 0;
}

/** Puts a running rescore back in the queue after a failure on our side, due at `retryAt`. */
export async function deferRescore(
  db: Db,
  key: RescoreKey,
  error: string,
  now: number,
  retryAt: number,
): Promise<void> {
  await db.$client
    .prepare(
      `UPDATE rescores SET state = 'queued', lease_until = 0, error = ?4, retry_at = ?5,
         waiting_since = COALESCE(waiting_since, ?6)
       WHERE challenge_id = ?1 AND version = ?2 AND submission_id = ?3 AND state = 'running'`,
    )
    .bind(key.challengeId, key.version, key.submissionId, error.slice(0, 2000), retryAt, now)
    .run();
}

/**
 * Rescores a crash or a lost message left behind: queued and due (queued before `queuedBefore`,
 * so a fresh one's own message is not raced), or running past its lease; for the reconciler.
 */
export async function findStrandedRescores(
  db: Db,
  now: number,
  queuedBefore: number,
  limit: number,
): Promise<RescoreRow[]> {
  // Only versions still being rescored: a discarded or promoted version's leftovers stay put.
  const { results } = await db.$client
    .prepare(
      `SELECT r.challenge_id AS challengeId, r.version, r.submission_id AS submissionId,
         r.agent_id AS agentId, r.state, r.attempts, r.lease_until AS leaseUntil,
         r.retry_at AS retryAt, r.waiting_since AS waitingSince, r.error,
         r.score_write AS scoreWrite, r.full_score AS fullScore, r.changed_tests AS changedTests,
         r.final_rounded AS finalRounded, r.final_unrounded AS finalUnrounded,
         r.queued_at AS queuedAt, r.settled_at AS settledAt
       FROM rescores r JOIN challenge_versions cv
         ON cv.challenge_id = r.challenge_id AND cv.version = r.version AND cv.state = 'rescoring'
       WHERE (r.state = 'queued' AND r.retry_at <= ?1 AND r.queued_at < ?2)
          OR (r.state = 'running' AND r.lease_until < ?1)
       LIMIT ?3`,
    )
    .bind(now, queuedBefore, limit)
    .all<RescoreRow>();
  return results;
}

/** Notes that the reconciler re-sent a rescore, so its next run waits the grace again. */
export async function noteRescoreRequeued(db: Db, key: RescoreKey, now: number): Promise<void> {
  await db.$client
    .prepare(
      `UPDATE rescores SET queued_at = ?4
       WHERE challenge_id = ?1 AND version = ?2 AND submission_id = ?3 AND state IN ('queued', 'running')`,
    )
    .bind(key.challengeId, key.version, key.submissionId, now)
    .run();
}

/**
 * Discards an open or refused candidate (its rescores are kept, its bundle too) and appends the
 * `discarded` event, in one batch; returns whether this call discarded it.
 */
export async function discardVersion(
  db: Db,
  key: { challengeId: string; version: number },
  decision: { operatorId: string; decisionId: string; now: number },
  event: AuditEventInput,
): Promise<boolean> {
  const d1 = db.$client;
  const results = await d1.batch([
    d1
      .prepare(
        `UPDATE challenge_versions SET state = 'discarded', decided_by = ?3, decided_at = ?4, decision_id = ?5
         WHERE challenge_id = ?1 AND version = ?2 AND state IN ('rescoring', 'ready', 'qa-failed')`,
      )
      .bind(key.challengeId, key.version, decision.operatorId, decision.now, decision.decisionId),
    prepareAuditEvent(
      d1,
      event,
      "EXISTS (SELECT 1 FROM challenge_versions WHERE challenge_id = ?2 AND version = ?13 AND decision_id = ?14)",
      [key.version, decision.decisionId],
    ),
  ]);
  return (results[0]?.meta.changes ?? 0) > 0;
}
