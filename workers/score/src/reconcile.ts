/**
 * @module score/reconcile
 * The reconciler, run by the cron trigger: finds submissions that a lost message, a dead
 * worker or a D1 / Durable Object outage left where nothing else will move them, and completes
 * each idempotently. Invariants: every action is safe to repeat (the consumer is idempotent by
 * submission id and holds a lease; publishing is idempotent and marked by `published_at`); a
 * failure on our side is failed only once its retry window (RETRY_WINDOW_MS) has passed, and
 * with `infrastructure`, which costs no iteration; one state's fault never stops the others.
 */
import { rescoreMessage, submissionMessage, type SubmissionsQueueMessage } from "@bouts/contracts";
import {
  createDb,
  failSubmission,
  findAbandonedScoringRuns,
  findScoringContext,
  findStrandedSubmissions,
  findStrandedRescores,
  noteRescoreRequeued,
  noteSubmissionRequeued,
  type Db,
} from "@bouts/db";
import type { ScoreEnv } from "./env.ts";
import { announceFailure, announceScore, RETRY_WINDOW_MS } from "./pipeline.ts";

/** How long a running submission may sit without a lease holder before the sweeper acts. */
export const ABANDONED_GRACE_MS = 20 * 60 * 1000;
/** How long a queued or overdue waiting submission may go without an attempt. */
export const STRANDED_GRACE_MS = 30 * 60 * 1000;
/** How long a settled outcome may stay unpublished (the consumer publishes at once). */
export const UNPUBLISHED_GRACE_MS = 10 * 60 * 1000;
/** The most submissions of each state one run handles. */
const BATCH_LIMIT = 100;

/** What one reconciler run did, by state. */
export interface ReconcileResult {
  /** Queued submissions whose message was lost, sent again. */
  requeuedQueued: number;
  /** Waiting submissions whose retry was lost, sent again. */
  requeuedWaiting: number;
  /** Running submissions whose worker died, sent again. */
  requeuedRunning: number;
  /** Submissions failed (`infrastructure`) because their retry window had passed. */
  failed: number;
  /** Scores ranked and announced that never were. */
  publishedScores: number;
  /** Failure events sent that never were. */
  publishedFailures: number;
  /** Rescores of a candidate version whose message was lost or whose worker died, sent again. */
  requeuedRescores: number;
  /** Actions that threw (logged); they are tried again on the next run. */
  errors: number;
}

type Requeue = { submissionId: string; challengeId: string; agentId: string };

/** Sends a submission's message again and notes when, so the next run waits again. */
async function requeue(
  env: { SUBMISSIONS: Queue<SubmissionsQueueMessage> },
  db: Db,
  s: Requeue,
  now: number,
) {
  await env.SUBMISSIONS.send(submissionMessage(s));
  await noteSubmissionRequeued(db, s.submissionId, now);
}

/** Fails a submission whose retry window has passed, and announces it. */
async function giveUp(env: ScoreEnv, db: Db, submissionId: string, now: number) {
  const hours = Math.round(RETRY_WINDOW_MS / 3_600_000);
  const reason = `scoring could not complete on the platform's side for ${hours} h; an operator can re-judge it`;
  if (!(await failSubmission(db, submissionId, reason, now, "infrastructure", "reconciler")))
    return false;
  const ctx = await findScoringContext(db, submissionId);
  if (ctx) await announceFailure(env, db, ctx, reason, now);
  return true;
}

/**
 * Finds and completes every stranded state: stale `queued` (re-queued), overdue `waiting` and
 * abandoned `running` (re-queued, or failed past the retry window), `scored` never ranked or
 * announced (published), `failed` never announced (its event sent).
 */
export async function reconcileScoring(env: ScoreEnv, now: number): Promise<ReconcileResult> {
  const db = createDb(env.DB);
  const result: ReconcileResult = {
    requeuedQueued: 0,
    requeuedWaiting: 0,
    requeuedRunning: 0,
    failed: 0,
    publishedScores: 0,
    publishedFailures: 0,
    requeuedRescores: 0,
    errors: 0,
  };
  const attempt = async (what: string, id: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (e) {
      result.errors += 1;
      console.error(`reconcile: ${what} ${id}: ${String(e)}`);
    }
  };
  const pastWindow = (since: number | null) => since !== null && now - since >= RETRY_WINDOW_MS;

  const stranded = await findStrandedSubmissions(
    db,
    { idleBefore: now - STRANDED_GRACE_MS, unpublishedBefore: now - UNPUBLISHED_GRACE_MS },
    BATCH_LIMIT,
  );
  for (const s of stranded) {
    const id = s.submissionId;
    switch (s.status) {
      case "queued":
        await attempt("requeue", id, async () => {
          await requeue(env, db, s, now);
          result.requeuedQueued += 1;
        });
        break;
      case "waiting":
        await attempt("requeue", id, async () => {
          if (pastWindow(s.waitingSince)) {
            if (await giveUp(env, db, id, now)) result.failed += 1;
            return;
          }
          await requeue(env, db, s, now);
          result.requeuedWaiting += 1;
        });
        break;
      case "scored":
        await attempt("publish", id, async () => {
          const ctx = await findScoringContext(db, id);
          if (!ctx) return;
          await announceScore(env, db, ctx, now);
          result.publishedScores += 1;
        });
        break;
      case "failed":
        await attempt("publish", id, async () => {
          const ctx = await findScoringContext(db, id);
          if (!ctx) return;
          await announceFailure(env, db, ctx, ctx.submission.failureReason ?? "failed", now);
          result.publishedFailures += 1;
        });
        break;
    }
  }
  for (const s of await findAbandonedScoringRuns(db, now, ABANDONED_GRACE_MS, BATCH_LIMIT)) {
    await attempt("requeue", s.submissionId, async () => {
      if (pastWindow(s.since)) {
        if (await giveUp(env, db, s.submissionId, now)) result.failed += 1;
        return;
      }
      await requeue(env, db, s, now);
      result.requeuedRunning += 1;
    });
  }
  // Shadow rescores (docs/design.md §30): a queued one idle past the grace, or a running one
  // whose lease expired, is sent again; the lease keeps a duplicate from running twice.
  for (const r of await findStrandedRescores(db, now, now - STRANDED_GRACE_MS, BATCH_LIMIT)) {
    await attempt("rescore", r.submissionId, async () => {
      const key = { challengeId: r.challengeId, version: r.version, submissionId: r.submissionId };
      await env.SUBMISSIONS.send(rescoreMessage(key));
      await noteRescoreRequeued(db, key, now);
      result.requeuedRescores += 1;
    });
  }
  return result;
}
