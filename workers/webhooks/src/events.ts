/**
 * @module webhooks-worker/events
 * Turns a producer's event message into the webhook body its recipient receives, with the
 * package's builders. Invariant: a body carries only the recipient's own data (the builders'
 * strict schemas refuse anything else); links point at our API.
 */
import { BANDS, parseFraction } from "@bouts/scoring";
import {
  buildLeaderboardOvertakenEvent,
  buildSubmissionFailedEvent,
  buildSubmissionRescoredEvent,
  buildSubmissionScoredEvent,
  buildWebhookScore,
  serializeEvent,
  WebhookJudgingSchema,
  type EventError,
  type WebhookJudging,
} from "@bouts/webhooks";
import { err, type Result } from "@bouts/result";
import type { EventMessage } from "./messages.ts";

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

const num = (v: unknown): number | null => (typeof v === "number" ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A scored event queued before the score role recorded who judged it says so, never "model". */
const UNRECORDED_JUDGING: WebhookJudging = {
  panel: "unspecified",
  summary: "Queued before judge provenance was recorded; the breakdown says who judged.",
};

function readJudging(v: unknown): WebhookJudging {
  const parsed = WebhookJudgingSchema.safeParse(v);
  return parsed.success ? parsed.data : UNRECORDED_JUDGING;
}

/** Builds and serializes the body of `message`; the string is stored, signed and sent. */
export function buildEventBody(
  message: EventMessage,
  ctx: EventContext,
): Result<string, EventBodyError> {
  const { data } = message;
  const base = `${ctx.linkOrigin}/v1`;
  const built = (() => {
    switch (message.type) {
      case "submission.scored": {
        const band = BANDS.find((b) => b.key === data.band);
        // The exact fraction, never the decimal text: most scores do not terminate in decimal.
        const exact = parseFraction(str(data.fraction) ?? ctx.storedFraction ?? "");
        if (!band || exact === null) return null;
        const score = buildWebhookScore(exact);
        // The stored rounding must agree with the fraction; the schema checks the rest.
        if (num(data.score) !== score.rounded) return null;
        return buildSubmissionScoredEvent(
          {
            submissionId: message.submissionId,
            challengeId: message.challengeId,
            score,
            band: { key: band.key, label: band.label },
            judging: readJudging(data.judging),
            rank: num(data.rank),
            breakdownUrl: `${base}/submissions/${message.submissionId}/breakdown`,
          },
          ctx.now,
        );
      }
      case "submission.failed": {
        const reason = str(data.reason) ?? "failed";
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
        const band = BANDS.find((b) => b.key === data.band);
        const before = parseFraction(str(data.previousFraction) ?? "");
        const after = parseFraction(str(data.fraction) ?? "");
        const version = num(data.version);
        const previousVersion = num(data.previousVersion);
        if (
          !band ||
          before === null ||
          after === null ||
          version === null ||
          previousVersion === null
        )
          return null;
        const score = buildWebhookScore(after);
        const previousScore = buildWebhookScore(before);
        if (num(data.score) !== score.rounded || num(data.previousScore) !== previousScore.rounded)
          return null;
        return buildSubmissionRescoredEvent(
          {
            submissionId: message.submissionId,
            challengeId: message.challengeId,
            version,
            previousVersion,
            previousScore,
            score,
            band: { key: band.key, label: band.label },
            previousRank: num(data.previousRank),
            rank: num(data.rank),
            breakdownUrl: `${base}/submissions/${message.submissionId}/breakdown`,
          },
          ctx.now,
        );
      }
      case "leaderboard.overtaken": {
        const previousRank = num(data.previousRank);
        const newRank = num(data.rank);
        const byScore = num(data.byScore);
        if (previousRank === null || newRank === null || byScore === null) return null;
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
    }
  })();
  if (built === null)
    return err({
      reason: "unmappable",
      type: message.type,
      detail: "the event's data lacks a field the payload needs",
    });
  if (!built.ok) return built;
  return { ok: true, value: serializeEvent(built.value) };
}
