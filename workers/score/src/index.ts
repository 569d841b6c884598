/**
 * @module score
 * The score role: the consumer of the submissions queue (and of its dead-letter queue), and
 * the sweeper that finds submissions whose worker died. Each message carries ids only; its
 * outcome is acked or retried with backoff per message, so one slow submission never holds
 * the batch back.
 */
import { createDb, failSubmission, findAbandonedScoringRuns, findScoringContext } from "@bouts/db";
import { z } from "zod";
import { MAX_ATTEMPTS, processSubmission, type ScoreEnv } from "./pipeline.ts";
import { publishFailed } from "./publish.ts";

export {
  processSubmission,
  buildScoreWrite,
  LEASE_MS,
  MAX_ATTEMPTS,
  type ScoreEnv,
} from "./pipeline.ts";
export { type ScoreEventMessage, type LeaderboardRecorder } from "./publish.ts";
export { buildEngineeringInput } from "./build-input.ts";
export { createJudgePanel, judgeRun } from "./judging.ts";
export { requestRun } from "./runner-client.ts";

const SubmissionMessageSchema = z.object({ submissionId: z.string().min(1).max(100) });

/** Consumes a batch from the submissions queue, one message at a time, acking each as it lands. */
export async function consumeSubmissions(
  batch: MessageBatch,
  env: ScoreEnv,
  now: () => number = Date.now,
): Promise<void> {
  for (const message of batch.messages) {
    const body = SubmissionMessageSchema.safeParse(message.body);
    if (!body.success) {
      console.error(`score: dropping a malformed message ${message.id}`);
      message.ack();
      continue;
    }
    try {
      const outcome = await processSubmission(env, body.data.submissionId, now);
      console.log(`score: ${body.data.submissionId}: ${outcome.note}`);
      if (outcome.action === "ack") message.ack();
      else message.retry({ delaySeconds: outcome.delaySeconds });
    } catch (e) {
      // An unexpected fault (D1 or R2 down): retry with backoff; after the queue's retries the
      // message lands in the dead-letter queue, whose consumer fails the submission visibly.
      console.error(`score: ${body.data.submissionId}: ${String(e)}`);
      message.retry({ delaySeconds: Math.min(600, 15 * 2 ** (message.attempts - 1)) });
    }
  }
}

/** Consumes the dead-letter queue: the submission is failed with a reason the agent can read. */
export async function consumeDeadSubmissions(
  batch: MessageBatch,
  env: ScoreEnv,
  now: () => number = Date.now,
): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const body = SubmissionMessageSchema.safeParse(message.body);
    if (body.success) {
      const reason =
        "scoring failed repeatedly on the platform's side; the submission was not scored";
      if (await failSubmission(db, body.data.submissionId, reason, now())) {
        const ctx = await findScoringContext(db, body.data.submissionId);
        if (ctx) await publishFailed(env, ctx, reason);
      }
    }
    message.ack();
  }
}

/** How long a running submission may sit without a lease holder before the sweeper acts. */
export const ABANDONED_GRACE_MS = 20 * 60 * 1000;

/**
 * Finds running submissions nobody is working on: re-queues them, or fails them once they
 * used their attempts, so a submission never stays "running" forever.
 */
export async function sweepScoring(
  env: ScoreEnv & { SUBMISSIONS: Queue },
  now: number,
): Promise<{ requeued: number; failed: number }> {
  const db = createDb(env.DB);
  const stuck = await findAbandonedScoringRuns(db, now, ABANDONED_GRACE_MS, 100);
  let requeued = 0;
  let failed = 0;
  for (const s of stuck) {
    if (s.attempts >= MAX_ATTEMPTS) {
      const reason = `scoring did not finish after ${s.attempts} attempts`;
      if (await failSubmission(db, s.submissionId, reason, now)) {
        failed += 1;
        const ctx = await findScoringContext(db, s.submissionId);
        if (ctx) await publishFailed(env, ctx, reason);
      }
    } else {
      await env.SUBMISSIONS.send({
        v: 1,
        submissionId: s.submissionId,
        challengeId: s.challengeId,
        agentId: s.agentId,
      });
      requeued += 1;
    }
  }
  return { requeued, failed };
}
