/**
 * @module score
 * The score role: the consumer of the submissions queue (and of its dead-letter queue), and
 * the reconciler that completes stranded work (reconcile.ts). Each message carries ids only;
 * a batch's messages are processed concurrently (at most BATCH_CONCURRENCY at once) and each
 * is acked or retried on its own, so one slow submission never holds the others back.
 * Invariants: a message that cannot be read goes to the dead-letter queue with its reason,
 * never silently dropped; the dead-letter consumer never throws on a bad letter.
 */
import {
  DeadLetterSchema,
  SubmissionsQueueMessageSchema,
  type DeadLetter,
  type RescoreMessage,
} from "@bouts/contracts";
import { createDb, failSubmission, findScoringContext } from "@bouts/db";
import {
  announceFailure,
  computeRetryDelaySeconds,
  processSubmission,
  RETRY_WINDOW_MS,
} from "./pipeline.ts";
import { readScoreConfig } from "./config.ts";
import type { ScoreEnv } from "./env.ts";
import { processRescore } from "./rescore.ts";

export {
  processSubmission,
  buildScoreWrite,
  computeRetryDelaySeconds,
  ATTEMPT_DEADLINE_MS,
  LEASE_MS,
  MAX_RETRY_DELAY_SECONDS,
  RETRY_WINDOW_MS,
} from "./pipeline.ts";
export {
  reconcileScoring,
  ABANDONED_GRACE_MS,
  STRANDED_GRACE_MS,
  UNPUBLISHED_GRACE_MS,
  type ReconcileResult,
} from "./reconcile.ts";
export type { LeaderboardRecorder, ScoreEnv } from "./env.ts";
export { buildEngineeringInput } from "./build-input.ts";
export {
  diffVerdicts,
  processRescore,
  RESCORE_CONCURRENCY,
  RESCORE_YIELD_SECONDS,
  type ChangedTest,
} from "./rescore.ts";
export { createJudgePanel, judgeRun } from "./judging.ts";
export { readScoreConfig, ScoreConfigSchema, type ScoreConfig } from "./config.ts";
export {
  probeRunner,
  requestRun,
  RUNNER_TIMEOUT_MS_DEFAULT,
  type RunnerEnv,
  type RunnerHealth,
} from "./runner-client.ts";

/** How many messages of one batch are processed at once (runs hold a runner each). */
export const BATCH_CONCURRENCY = 5;

/** Bindings of the consumer: the pipeline's, and the dead-letter queue's producer. */
export type ConsumerEnv = ScoreEnv & { SUBMISSIONS_DLQ: Queue<DeadLetter> };

/** Runs `work` over `items`, at most `limit` at a time. */
async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Runs one rescore message (a candidate version's shadow run); never throws. */
async function consumeRescore(
  message: Message,
  msg: RescoreMessage,
  env: ConsumerEnv,
  now: () => number,
) {
  try {
    const outcome = await processRescore(env, msg, now);
    console.log(`score: ${outcome.note}`);
    if (outcome.action === "ack") message.ack();
    else message.retry({ delaySeconds: outcome.delaySeconds });
  } catch (e) {
    console.error(`score: rescore ${msg.submissionId} v${msg.version}: ${String(e)}`);
    message.retry({ delaySeconds: computeRetryDelaySeconds(message.attempts) });
  }
}

/** Handles one message of the submissions queue; never throws. */
async function consumeSubmission(message: Message, env: ConsumerEnv, now: () => number) {
  const body = SubmissionsQueueMessageSchema.safeParse(message.body);
  if (body.success && body.data.kind === "rescore")
    return consumeRescore(message, body.data, env, now);
  if (!body.success) {
    // Retrying cannot repair it: it goes to the dead-letter queue now, with the reason.
    const detail = body.error.issues
      .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
      .join("; ");
    const letter: DeadLetter = {
      v: 1,
      kind: "dead-letter",
      reason: "malformed-message",
      detail: detail.slice(0, 1000),
      messageId: message.id,
      body: message.body,
    };
    try {
      await env.SUBMISSIONS_DLQ.send(letter);
      console.error(`score: malformed message ${message.id} dead-lettered: ${detail}`);
      message.ack();
    } catch (e) {
      // The queue's own dead-lettering takes it after the last retry.
      console.error(
        `score: malformed message ${message.id} (${detail}); DLQ send failed: ${String(e)}`,
      );
      message.retry({ delaySeconds: computeRetryDelaySeconds(message.attempts) });
    }
    return;
  }
  try {
    const outcome = await processSubmission(env, body.data.submissionId, now);
    console.log(`score: ${body.data.submissionId}: ${outcome.note}`);
    if (outcome.action === "ack") message.ack();
    else message.retry({ delaySeconds: outcome.delaySeconds });
  } catch (e) {
    // An unexpected fault (D1, R2 or the leaderboard down): retry on the same capped schedule;
    // the reconciler finishes whatever the retries do not.
    console.error(`score: ${body.data.submissionId}: ${String(e)}`);
    message.retry({ delaySeconds: computeRetryDelaySeconds(message.attempts) });
  }
}

/** Consumes a batch from the submissions queue, BATCH_CONCURRENCY messages at a time. */
export async function consumeSubmissions(
  batch: MessageBatch,
  env: ConsumerEnv,
  now: () => number = Date.now,
): Promise<void> {
  // The configuration is parsed here, once per env, before any message: a misconfigured
  // deployment retries the batch with the named cause in the log, never a half-run submission.
  try {
    readScoreConfig(env);
  } catch (e) {
    console.error(`score: ${String(e)}; the batch is retried`);
    for (const m of batch.messages) m.retry({ delaySeconds: computeRetryDelaySeconds(m.attempts) });
    return;
  }
  await forEachConcurrently(batch.messages, BATCH_CONCURRENCY, (m) =>
    consumeSubmission(m, env, now),
  );
}

/**
 * Consumes the dead-letter queue. A submission message that exhausted its retries, past its
 * retry window (about a day of capped backoff), fails the submission with `infrastructure`, which
 * costs no iteration and an operator may re-judge; a letter the role dead-lettered itself, or
 * anything unreadable, is logged and acked; one still inside its retry window is left to the
 * reconciler, which sends it again. A fault is retried per message, never thrown.
 */
export async function consumeDeadSubmissions(
  batch: MessageBatch,
  env: ScoreEnv,
  now: () => number = Date.now,
): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    try {
      const letter = DeadLetterSchema.safeParse(message.body);
      if (letter.success) {
        console.error(
          `score dlq: ${letter.data.reason} (message ${letter.data.messageId}): ${letter.data.detail}`,
        );
        message.ack();
        continue;
      }
      const body = SubmissionsQueueMessageSchema.safeParse(message.body);
      if (!body.success) {
        console.error(`score dlq: unreadable letter ${message.id}; dropped`);
        message.ack();
        continue;
      }
      // A rescore whose retries ran out: its row stays queued, and the reconciler re-sends it.
      if (body.data.kind === "rescore") {
        console.warn(`score dlq: rescore letter ${message.id} left to the reconciler`);
        message.ack();
        continue;
      }
      const ctx = await findScoringContext(db, body.data.submissionId);
      const s = ctx?.submission;
      const since = s ? (s.waitingSince ?? s.runningAt ?? s.queuedAt ?? s.receivedAt) : 0;
      if (ctx && now() - since < RETRY_WINDOW_MS) {
        // Still inside its retry window: the reconciler sends it again; nothing is failed early.
        console.warn(`score dlq: ${body.data.submissionId} left to the reconciler`);
        message.ack();
        continue;
      }
      const reason =
        "scoring failed repeatedly on the platform's side; the submission was not scored (an operator can re-judge it)";
      if (
        ctx &&
        (await failSubmission(db, ctx.submission.id, reason, now(), "infrastructure", "score-dlq"))
      )
        await announceFailure(env, db, ctx, reason, now());
      message.ack();
    } catch (e) {
      // D1 or the queue is down: this letter again later; the reconciler covers the rest.
      console.error(`score dlq: ${message.id}: ${String(e)}`);
      message.retry({ delaySeconds: 60 });
    }
  }
}
