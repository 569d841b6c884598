/**
 * @module db/queries/scores
 * The score role's reads and writes. Invariants: a submission is scored under a lease (one
 * consumer at a time; an expired lease can be taken over), and a score, its parts and the
 * submission's `scored` status are written in one D1 batch — all or nothing, and a second
 * write of the same submission changes nothing.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../db.ts";
import {
  agents,
  challenges,
  entries,
  submissions,
  type ChallengeRow,
  type SubmissionFailureCode,
  type SubmissionRow,
} from "../schema.ts";
import { scores, type ScoreRow } from "../schema-scores.ts";
import { AUDIT_COLUMNS, prepareAuditEvent } from "./audit.ts";

/** A submission with what scoring needs to know about its challenge and entry. */
export interface ScoringContext {
  submission: SubmissionRow;
  challenge: ChallengeRow;
  enteredAt: number;
  /** Set when the submission is one of the challenge's baselines: it is scored, never ranked. */
  baseline: { kind: "reference" | "stub" | "other"; label: string } | null;
}

/**
 * Loads a submission, its challenge and the agent's entry time into that challenge (the start
 * of its clock, a public tiebreak); null when unknown.
 */
export async function findScoringContext(
  db: Db,
  submissionId: string,
): Promise<ScoringContext | null> {
  const row = await db
    .select({
      submission: submissions,
      challenge: challenges,
      enteredAt: entries.enteredAt,
      baselineKind: agents.baselineKind,
      agentName: agents.name,
    })
    .from(submissions)
    .innerJoin(challenges, eq(challenges.id, submissions.challengeId))
    .innerJoin(agents, eq(agents.id, submissions.agentId))
    // The entry of this agent into this challenge: an agent has one per challenge it entered.
    .leftJoin(
      entries,
      and(
        eq(entries.agentId, submissions.agentId),
        eq(entries.challengeId, submissions.challengeId),
      ),
    )
    .where(eq(submissions.id, submissionId))
    .get();
  if (!row) return null;
  return {
    submission: row.submission,
    challenge: row.challenge,
    enteredAt: row.enteredAt ?? row.submission.receivedAt,
    baseline: row.baselineKind ? { kind: row.baselineKind, label: row.agentName } : null,
  };
}

/** The outcome of trying to take the scoring lease. */
export type LeaseClaim =
  { claimed: true; attempts: number } | { claimed: false; leaseUntil: number | null };

/**
 * Takes the lease on a submission (first time, or after the previous holder's lease expired)
 * and marks it running — both in one batch. A scored or failed submission is never claimed.
 */
export async function claimScoringLease(
  db: Db,
  submissionId: string,
  now: number,
  leaseMs: number,
): Promise<LeaseClaim> {
  const until = now + leaseMs;
  const d1 = db.$client;
  const [claim] = await d1.batch<{ attempts: number }>([
    d1
      .prepare(
        `INSERT INTO scoring_runs (submission_id, attempts, lease_until, last_error, updated_at)
         SELECT ?1, 1, ?2, NULL, ?3 FROM submissions WHERE id = ?1 AND status IN ('received','queued','running','waiting')
         ON CONFLICT (submission_id) DO UPDATE SET attempts = attempts + 1, lease_until = excluded.lease_until,
           updated_at = excluded.updated_at
         WHERE scoring_runs.lease_until <= ?3
         RETURNING attempts`,
      )
      .bind(submissionId, until, now),
    d1
      .prepare(
        `UPDATE submissions SET status = 'running', running_at = COALESCE(running_at, ?3),
           waiting_reason = NULL, retry_at = NULL
         WHERE id = ?1 AND status IN ('received','queued','running','waiting')
           AND EXISTS (SELECT 1 FROM scoring_runs WHERE submission_id = ?1 AND lease_until = ?2)`,
      )
      .bind(submissionId, until, now),
  ]);
  const attempts = claim?.results[0]?.attempts;
  if (attempts !== undefined) return { claimed: true, attempts };
  const held = await d1
    .prepare("SELECT lease_until FROM scoring_runs WHERE submission_id = ?")
    .bind(submissionId)
    .first<{ lease_until: number }>();
  return { claimed: false, leaseUntil: held?.lease_until ?? null };
}

/**
 * Gives the lease back after a failure on our side and shows the submission `waiting`, with
 * the reason and when the next attempt is due; the first such failure starts its retry window
 * (`waiting_since`). Only a submission still running is moved.
 */
export async function deferScoring(
  db: Db,
  submissionId: string,
  reason: string,
  now: number,
  retryAt: number,
): Promise<void> {
  const d1 = db.$client;
  await d1.batch([
    d1
      .prepare(
        "UPDATE scoring_runs SET lease_until = 0, last_error = ?2, updated_at = ?3 WHERE submission_id = ?1",
      )
      .bind(submissionId, reason.slice(0, 2000), now),
    d1
      .prepare(
        `UPDATE submissions SET status = 'waiting', waiting_reason = ?2,
           waiting_since = COALESCE(waiting_since, ?3), retry_at = ?4
         WHERE id = ?1 AND status IN ('received','queued','running','waiting')`,
      )
      .bind(submissionId, reason.slice(0, 2000), now, retryAt),
  ]);
}

/**
 * Marks a submission failed with a reason the agent can read and a stable `code`, and appends
 * its `failed` audit event (actor: the platform role `actorId`) in the same batch; scored
 * submissions are untouched.
 */
export async function failSubmission(
  db: Db,
  submissionId: string,
  reason: string,
  now: number,
  code: SubmissionFailureCode = "infrastructure",
  actorId = "score",
): Promise<boolean> {
  const d1 = db.$client;
  const [, res] = await d1.batch([
    // The `failed` event, with the state it replaces, under the UPDATE's own condition.
    d1
      .prepare(
        `INSERT OR IGNORE INTO audit_events (${AUDIT_COLUMNS})
         SELECT 'failed:' || id || ':' || ?3, challenge_id, id, agent_id, 'failed', 'submission', 'system', ?5,
           ?2, json_object('status', status), json_object('status', 'failed', 'failureCode', ?4, 'failureReason', ?2), ?3
         FROM submissions WHERE id = ?1 AND status IN ('received','queued','running','waiting')`,
      )
      .bind(submissionId, reason.slice(0, 2000), now, code, actorId),
    d1
      .prepare(
        `UPDATE submissions SET status = 'failed', failure_reason = ?2, failed_at = ?3, failure_code = ?4,
           retry_at = NULL WHERE id = ?1 AND status IN ('received','queued','running','waiting')`,
      )
      .bind(submissionId, reason.slice(0, 2000), now, code),
    d1
      .prepare(
        "UPDATE scoring_runs SET lease_until = 0, last_error = ?2, updated_at = ?3 WHERE submission_id = ?1",
      )
      .bind(submissionId, reason.slice(0, 2000), now),
  ]);
  return (res?.meta.changes ?? 0) > 0;
}

/** Everything one score writes. */
export interface ScoreWrite {
  score: Omit<ScoreRow, never>;
  components: {
    key: string;
    weight: number;
    score: number;
    scoreText: string;
    contributionText: string;
  }[];
  judgements: {
    task: string;
    target: string;
    judge: string;
    source: string;
    dimensions: string | null;
    score: number | null;
    rationale: string;
    injectionSuspected: boolean;
  }[];
  findings: {
    tool: string;
    rule: string;
    cwe: string | null;
    severity: string;
    file: string;
    line: number;
    message: string;
  }[];
  testCounts: { suite: "static" | "adversarial"; bucket: string; passed: number; total: number }[];
}

/**
 * Writes a score and its parts, appends its `scored` audit event and marks the submission
 * scored, in one batch. Only a submission that is still running under a lease is scored, and
 * only on the challenge's live version (`score.challengeVersion`: a promotion during the run
 * makes the write a no-op, and the caller scores it again); rerunning it changes nothing. A
 * candidate version being rescored gets a rescore of this submission in the same batch.
 * Returns whether this call wrote the score.
 */
export async function saveScore(db: Db, w: ScoreWrite, now: number): Promise<boolean> {
  const d1 = db.$client;
  const s = w.score;
  const id = s.submissionId;
  const stmts: D1PreparedStatement[] = [
    d1
      .prepare(
        `INSERT INTO scores (submission_id, challenge_id, agent_id, iteration, profile, profile_version, family,
           final_unrounded, final_fraction, final_rounded, band, breakdown, input, human_review, judge_mode,
           report_key, submitted_at, entered_at, scored_at, usage, challenge_version, files_sha256)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22
         WHERE EXISTS (SELECT 1 FROM submissions WHERE id = ?1 AND status = 'running')
           AND EXISTS (SELECT 1 FROM challenges WHERE id = ?2 AND version = ?21)
         ON CONFLICT (submission_id) DO NOTHING`,
      )
      .bind(
        id,
        s.challengeId,
        s.agentId,
        s.iteration,
        s.profile,
        s.profileVersion,
        s.family,
        s.finalUnrounded,
        s.finalFraction,
        s.finalRounded,
        s.band,
        s.breakdown,
        s.input,
        s.humanReview ? 1 : 0,
        s.judgeMode,
        s.reportKey,
        s.submittedAt,
        s.enteredAt,
        s.scoredAt,
        s.usage ?? null,
        s.challengeVersion ?? 1,
        s.filesSha256 ?? null,
      ),
    ...w.components.map((c) =>
      d1
        .prepare(
          "INSERT OR IGNORE INTO score_components (submission_id, key, weight, score, score_text, contribution_text) SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM scores WHERE submission_id = ?1)",
        )
        .bind(id, c.key, c.weight, c.score, c.scoreText, c.contributionText),
    ),
    ...w.judgements.map((j) =>
      d1
        .prepare(
          "INSERT OR IGNORE INTO judgements (submission_id, task, target, judge, source, dimensions, score, rationale, injection_suspected) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE EXISTS (SELECT 1 FROM scores WHERE submission_id = ?1)",
        )
        .bind(
          id,
          j.task,
          j.target,
          j.judge,
          j.source,
          j.dimensions,
          j.score,
          j.rationale.slice(0, 4000),
          j.injectionSuspected ? 1 : 0,
        ),
    ),
    ...w.findings.map((f, i) =>
      d1
        .prepare(
          "INSERT OR IGNORE INTO findings (submission_id, ordinal, tool, rule, cwe, severity, file, line, message) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE EXISTS (SELECT 1 FROM scores WHERE submission_id = ?1)",
        )
        .bind(id, i, f.tool, f.rule, f.cwe, f.severity, f.file, f.line, f.message.slice(0, 2000)),
    ),
    ...w.testCounts.map((t) =>
      d1
        .prepare(
          "INSERT OR IGNORE INTO test_counts (submission_id, suite, bucket, passed, total) SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM scores WHERE submission_id = ?1)",
        )
        .bind(id, t.suite, t.bucket, t.passed, t.total),
    ),
    // The `scored` event, before the status moves, under the same condition as the move.
    prepareAuditEvent(
      d1,
      {
        id: `scored:${id}`,
        challengeId: s.challengeId,
        submissionId: id,
        agentId: s.agentId,
        type: "scored",
        scope: "submission",
        actorKind: "system",
        actorId: "score",
        cause: `the score pipeline scored iteration ${s.iteration} (${s.judgeMode} judges)`,
        before: { status: "running" },
        after: {
          status: "scored",
          score: s.finalRounded,
          unrounded: s.finalUnrounded,
          band: s.band,
          profileVersion: s.profileVersion,
        },
        at: now,
      },
      "EXISTS (SELECT 1 FROM submissions WHERE id = ?3 AND status = 'running') AND EXISTS (SELECT 1 FROM scores WHERE submission_id = ?3 AND scored_at = ?13)",
      [s.scoredAt],
    ),
    // A candidate version open for this challenge (docs/design.md §30) rescores this submission
    // too, so a promotion never leaves a score computed on the old version behind; a `ready`
    // candidate goes back to `rescoring` until that rescore settles.
    d1
      .prepare(
        `INSERT OR IGNORE INTO rescores (challenge_id, version, submission_id, agent_id, state, queued_at)
         SELECT cv.challenge_id, cv.version, ?1, ?3, 'queued', ?4 FROM challenge_versions cv
         WHERE cv.challenge_id = ?2 AND cv.state IN ('rescoring', 'ready')
           AND EXISTS (SELECT 1 FROM submissions WHERE id = ?1 AND status = 'running')
           AND EXISTS (SELECT 1 FROM scores WHERE submission_id = ?1 AND scored_at = ?5)`,
      )
      .bind(id, s.challengeId, s.agentId, now, s.scoredAt),
    d1
      .prepare(
        `UPDATE challenge_versions SET state = 'rescoring'
         WHERE challenge_id = ?2 AND state = 'ready'
           AND EXISTS (SELECT 1 FROM rescores r WHERE r.challenge_id = ?2
             AND r.version = challenge_versions.version AND r.submission_id = ?1 AND r.state = 'queued')`,
      )
      .bind(id, s.challengeId),
    d1
      .prepare(
        "UPDATE submissions SET status = 'scored', scored_at = ?2 WHERE id = ?1 AND status = 'running' AND EXISTS (SELECT 1 FROM scores WHERE submission_id = ?1)",
      )
      .bind(id, now),
    d1
      .prepare(
        "UPDATE scoring_runs SET lease_until = 0, last_error = NULL, updated_at = ?2 WHERE submission_id = ?1",
      )
      .bind(id, now),
  ];
  const results = await d1.batch(stmts);
  return (results[0]?.meta.changes ?? 0) > 0;
}

/** The stored score of a submission, or null. */
export async function findScore(db: Db, submissionId: string): Promise<ScoreRow | null> {
  return (
    (await db.select().from(scores).where(eq(scores.submissionId, submissionId)).get()) ?? null
  );
}

/**
 * Records that a settled submission's outcome was published (ranked and announced, or its
 * failure announced). Returns whether this call set the marker.
 */
export async function markSubmissionPublished(
  db: Db,
  submissionId: string,
  now: number,
): Promise<boolean> {
  const r = await db.$client
    .prepare(
      "UPDATE submissions SET published_at = ?2 WHERE id = ?1 AND status IN ('scored','failed') AND published_at IS NULL",
    )
    .bind(submissionId, now)
    .run();
  return r.meta.changes > 0;
}

/** A submission the reconciler found in a state nobody will move it out of by itself. */
export interface StrandedSubmission {
  submissionId: string;
  challengeId: string;
  agentId: string;
  status: "queued" | "waiting" | "scored" | "failed";
  /** Start of the retry window (waiting), or null. */
  waitingSince: number | null;
}

/**
 * Stranded submissions, oldest first, at most `limit` of each kind: `queued` with no attempt
 * since `idleBefore` (the message was lost), `waiting` whose retry was due before `idleBefore`
 * (the retry was lost), and `scored` or `failed` before `unpublishedBefore` whose outcome was
 * never published.
 */
export async function findStrandedSubmissions(
  db: Db,
  cutoffs: { idleBefore: number; unpublishedBefore: number },
  limit: number,
): Promise<StrandedSubmission[]> {
  const before = cutoffs.idleBefore;
  const cols =
    "id AS submissionId, challenge_id AS challengeId, agent_id AS agentId, status, waiting_since AS waitingSince";
  const d1 = db.$client;
  const results = await d1.batch<StrandedSubmission>([
    d1
      .prepare(
        `SELECT ${cols} FROM submissions WHERE status = 'queued'
           AND COALESCE(retry_at, queued_at, received_at) < ?1 ORDER BY received_at LIMIT ?2`,
      )
      .bind(before, limit),
    d1
      .prepare(
        `SELECT ${cols} FROM submissions WHERE status = 'waiting' AND retry_at < ?1
           ORDER BY retry_at LIMIT ?2`,
      )
      .bind(before, limit),
    d1
      .prepare(
        `SELECT ${cols} FROM submissions WHERE status IN ('scored','failed') AND published_at IS NULL
           AND COALESCE(scored_at, failed_at) < ?1 ORDER BY received_at LIMIT ?2`,
      )
      .bind(cutoffs.unpublishedBefore, limit),
  ]);
  return results.flatMap((r) => r.results);
}

/** Notes that a sweep re-queued a queued or waiting submission, so the next sweep waits again. */
export async function noteSubmissionRequeued(
  db: Db,
  submissionId: string,
  now: number,
): Promise<void> {
  await db.$client
    .prepare(
      "UPDATE submissions SET retry_at = ?2 WHERE id = ?1 AND status IN ('queued','waiting')",
    )
    .bind(submissionId, now)
    .run();
}

/**
 * Running submissions nobody is working on: the lease expired (its worker died) or was given
 * back more than `graceMs` ago and no retry picked it up. Oldest first.
 */
export async function findAbandonedScoringRuns(
  db: Db,
  now: number,
  graceMs: number,
  limit: number,
): Promise<
  {
    submissionId: string;
    challengeId: string;
    agentId: string;
    attempts: number;
    /** Start of the retry window: the first failure on our side, else the first attempt. */
    since: number;
  }[]
> {
  const r = await db.$client
    .prepare(
      `SELECT s.id AS submissionId, s.challenge_id AS challengeId, s.agent_id AS agentId, r.attempts AS attempts,
         COALESCE(s.waiting_since, s.running_at, s.received_at) AS since
       FROM submissions s JOIN scoring_runs r ON r.submission_id = s.id
       WHERE s.status = 'running' AND r.lease_until < ?1 AND r.updated_at < ?2
       ORDER BY r.updated_at LIMIT ?3`,
    )
    .bind(now, now - graceMs, limit)
    .all<{
      submissionId: string;
      challengeId: string;
      agentId: string;
      attempts: number;
      since: number;
    }>();
  return r.results;
}
