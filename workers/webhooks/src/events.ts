/**
 * @module webhooks-worker/events
 * Turns a producer's event message (parsed with its contract, `@bouts/contracts`
 * `EventMessageSchema`) into the webhook body its recipient receives, with the package's
 * builders. Invariants: a body carries only the recipient's own data (the builders' strict
 * schemas refuse anything else); links point at our API; every event type has its case (the
 * switch is exhaustive, so a new type does not compile until it is mapped).
 */
import { buildWebhookScore, type EventMessage, type WebhookJudging } from "@bouts/contracts";
import { BANDS, parseFraction } from "@bouts/scoring";
import {
  buildLeaderboardOvertakenEvent,
  buildSubmissionFailedEvent,
  buildSubmissionRescoredEvent,
  buildSubmissionScoredEvent,
  serializeEvent,
  type EventError,
} from "@bouts/webhooks";
import { err, type Result } from "@bouts/result";

/** Why an event message could not become a body. */
export type EventBodyError = EventError | { reason: "unmappable"; type: string; detail: string };

/** What the consumer looks up for a body. */
export interface EventContext {
  linkOrigin: string;
  now: Date;
  /** The recipient's rounded ranking score on the challenge (overtaken only); null when unknown. */
  recipientScore: number | null;
  /**
   * The stored exact score ("p/q", `scores.final_fraction`) for a scored event whose message
   * carries no `fraction` (queued before it did); null otherwise.
   */
  storedFraction?: string | null;
}

/** A scored event queued before the score role recorded who judged it says so, never "model". */
const UNRECORDED_JUDGING: WebhookJudging = {
  panel: "unspecified",
  summary: "Queued before judge provenance was recorded; the breakdown says who judged.",
};

/** Builds and serializes the body of `message`; the string is stored, signed and sent. */
export function buildEventBody(
  message: EventMessage,
  ctx: EventContext,
): Result<string, EventBodyError> {
  const base = `${ctx.linkOrigin}/v1`;
  const built = (() => {
    switch (message.type) {
      case "submission.scored": {
        const { data } = message;
        const band = BANDS.find((b) => b.key === data.band);
        // The exact fraction, never the decimal text: most scores do not terminate in decimal.
        const exact = parseFraction(data.fraction ?? ctx.storedFraction ?? "");
        if (!band || exact === null) return null;
        const score = buildWebhookScore(exact);
        // The stored rounding must agree with the fraction; the schema checks the rest.
        if (data.score !== score.rounded) return null;
        return buildSubmissionScoredEvent(
          {
            submissionId: message.submissionId,
            challengeId: message.challengeId,
            score,
            band: { key: band.key, label: band.label },
            judging: data.judging ?? UNRECORDED_JUDGING,
            rank: data.rank,
            breakdownUrl: `${base}/submissions/${message.submissionId}/breakdown`,
          },
          ctx.now,
        );
      }
      case "submission.failed": {
        const { reason } = message.data;
        // The score role sends a kebab-case code or a sentence; either way the agent gets both.
        const code = /^[a-z][a-z0-9-]{0,63}$/.test(reason) ? reason : "scoring-failed";
        return buildSubmissionFailedEvent(
          {
            submissionId: message.submissionId,
            challengeId: message.challengeId,
            reason: { code, message: reason.slice(0, 1000) || "failed" },
            submissionUrl: `${base}/submissions/${message.submissionId}`,
          },
          ctx.now,
        );
      }
      case "submission.rescored": {
        // Exact fractions on both sides, as for a scored event; the stored roundings must agree.
        const { data } = message;
        const band = BANDS.find((b) => b.key === data.band);
        const before = parseFraction(data.previousFraction);
        const after = parseFraction(data.fraction);
        if (!band || before === null || after === null) return null;
        const score = buildWebhookScore(after);
        const previousScore = buildWebhookScore(before);
        if (data.score !== score.rounded || data.previousScore !== previousScore.rounded)
          return null;
        return buildSubmissionRescoredEvent(
          {
            submissionId: message.submissionId,
            challengeId: message.challengeId,
            version: data.version,
            previousVersion: data.previousVersion,
            previousScore,
            score,
            band: { key: band.key, label: band.label },
            previousRank: data.previousRank,
            rank: data.rank,
            breakdownUrl: `${base}/submissions/${message.submissionId}/breakdown`,
          },
          ctx.now,
        );
      }
      case "leaderboard.overtaken": {
        const { previousRank, rank: newRank, byScore } = message.data;
        if (ctx.recipientScore === null) return null;
        return buildLeaderboardOvertakenEvent(
          {
            challengeId: message.challengeId,
            previousRank,
            newRank,
            yourScore: { rounded: ctx.recipientScore },
            overtakingScore: { rounded: byScore },
            leaderboardUrl: `${base}/challenges/${message.challengeId}/leaderboard`,
          },
          ctx.now,
        );
      }
      default:
        // Every queued event type has its case above: a new one does not compile until mapped.
        return message satisfies never;
    }
  })();
  if (built === null)
    return err({
      reason: "unmappable",
      type: message.type,
      detail: "the event's data does not make its payload (band, fraction or recipient unknown)",
    });
  if (!built.ok) return built;
  return { ok: true, value: serializeEvent(built.value) };
}
