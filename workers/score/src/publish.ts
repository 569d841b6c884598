/**
 * @module score/publish
 * Publishing a settled submission: the leaderboard record and the webhook events of a score, the
 * failure event of a failed one. Invariant: every step is idempotent by submission id (the board
 * applies a result once; event ids are deterministic), so publishing is simply repeated when a
 * message comes back after a partial failure.
 */
import {
  countRejudges,
  createDb,
  findRemoval,
  findScore,
  type Db,
  type ScoringContext,
} from "@bouts/db";
import {
  boardExtrasOf,
  eventMessage,
  parseJson,
  parseStoredBreakdown,
  RunUsageSchema,
  toBatches,
  webhookJudgingOf,
  type BoardExtras,
  type BoardWriteError,
  type EventMessage,
  type RunUsage,
  type WebhookJudging,
} from "@bouts/contracts";
import { openingOf } from "@bouts/ranking";
import type { ScoreEnv } from "./env.ts";

/**
 * What publishing takes of a stored breakdown: the board's extras and the webhook's judging.
 * A breakdown that does not parse gives neither (logged; the score still publishes, as one
 * stored before intervals and provenance would), the one rule of `parseStoredBreakdown`.
 */
export function readPublishedExtras(
  submissionId: string,
  text: string,
): { board: BoardExtras; judging: WebhookJudging | null } {
  const stored = parseStoredBreakdown(text);
  if (!stored.ok) {
    console.error(`stored breakdown of ${submissionId} does not parse`, stored.error.detail);
    return { board: {}, judging: null };
  }
  return { board: boardExtrasOf(stored.value), judging: webhookJudgingOf(stored.value) };
}

/** The detail of the board's refusal, when it has one. */
const detailOf = (e: BoardWriteError) => ("detail" in e ? e.detail : "");

/** Records a stored score on the leaderboard and enqueues its events; safe to repeat. */
export async function publishScored(env: ScoreEnv, db: Db, ctx: ScoringContext): Promise<void> {
  const score = await findScore(db, ctx.submission.id);
  if (!score) return;
  // An operator removed it from the board (audited): a late republish must not rank it again.
  if (await findRemoval(db, ctx.submission.id)) return;
  // A baseline is a reference line: recorded apart, ranked never, announced to nobody.
  if (ctx.baseline) {
    const line = await env.LEADERBOARD.getByName(ctx.challenge.id).recordBaseline({
      challengeId: ctx.challenge.id,
      submissionId: score.submissionId,
      agentId: score.agentId,
      label: ctx.baseline.label,
      kind: ctx.baseline.kind,
      score: score.finalRounded,
      unrounded: score.finalUnrounded,
      scoredAt: score.scoredAt,
    });
    if (!line.ok)
      throw new Error(
        `the leaderboard refused the baseline: ${line.error.reason} ${detailOf(line.error)}`,
      );
    return;
  }
  const extras = readPublishedExtras(score.submissionId, score.breakdown);
  const answer = await env.LEADERBOARD.getByName(ctx.challenge.id).recordResult({
    challengeId: ctx.challenge.id,
    submissionId: score.submissionId,
    agentId: score.agentId,
    score: score.finalRounded,
    unrounded: score.finalUnrounded,
    iteration: score.iteration,
    enteredAt: score.enteredAt,
    submittedAt: score.submittedAt,
    scoredAt: score.scoredAt,
    ...extras.board,
    ...usageOf(score.usage),
    rankingMode: ctx.challenge.rankingMode,
    openedAt: openingOf(ctx.challenge),
  });
  // A refusal means the board and D1 disagree about the challenge: a fault to retry, not to hide.
  if (!answer.ok)
    throw new Error(
      `the leaderboard refused the result: ${answer.error.reason} ${detailOf(answer.error)}`,
    );
  // A repeated result gets the overtaken list stored when it was first applied, so a repeat
  // re-sends every event; the webhook sender dedupes them by event id.
  const recorded = answer.value;
  const about = { challengeId: ctx.challenge.id, submissionId: ctx.submission.id };
  const events: EventMessage[] = [
    eventMessage(
      "submission.scored",
      { ...about, eventId: `evt_${ctx.submission.id}_scored`, agentId: ctx.submission.agentId },
      {
        score: score.finalRounded,
        unrounded: score.finalUnrounded,
        // The exact value ("p/q"): the decimal text ends in "…" when it does not terminate.
        fraction: score.finalFraction,
        band: score.band,
        judging: extras.judging,
        rank: recorded.rank,
        iteration: score.iteration,
      },
    ),
    ...recorded.overtaken.map((o) =>
      eventMessage(
        "leaderboard.overtaken",
        { ...about, eventId: `evt_${ctx.submission.id}_overtook_${o.agentId}`, agentId: o.agentId },
        { previousRank: o.previousRank, rank: o.rank, byScore: score.finalRounded },
      ),
    ),
  ];
  // One score can overtake up to 100 agents, i.e. 101 events: more than one sendBatch carries.
  for (const batch of toBatches(events)) await env.WEBHOOKS.sendBatch(batch);
}

/** The stored usage as the board takes it; absent when the run had no (valid) usage. */
function usageOf(text: string | null): { usage?: RunUsage } {
  if (text === null) return {};
  const usage = RunUsageSchema.safeParse(parseJson(text));
  return usage.success ? { usage: usage.data } : {};
}

/** Enqueues the failure event; safe to repeat (the event id is deterministic). */
export async function publishFailed(
  env: ScoreEnv,
  ctx: ScoringContext,
  reason: string,
): Promise<void> {
  // A baseline belongs to no competitor: its failure is in its history, announced to nobody.
  if (ctx.baseline) return;
  // A failure after an operator's rejudge is a new event, not a repeat of the first failure:
  // its id names the rejudge, so receivers (and the sender's dedupe) do not drop it.
  const rejudges = await countRejudges(createDb(env.DB), ctx.submission.id);
  await env.WEBHOOKS.send(
    eventMessage(
      "submission.failed",
      {
        eventId: `evt_${ctx.submission.id}_failed${rejudges > 0 ? `_r${rejudges}` : ""}`,
        agentId: ctx.submission.agentId,
        challengeId: ctx.challenge.id,
        submissionId: ctx.submission.id,
      },
      { reason },
    ),
  );
}
