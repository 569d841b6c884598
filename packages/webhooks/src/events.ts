/**
 * @module webhooks/events
 * The event payloads, as zod schemas, and their builders. Envelope per the Standard Webhooks
 * convention: `{ type, timestamp, data }`. Pure: `now` is an argument.
 *
 * Invariants:
 * - Every object schema is strict, so a builder refuses any field it does not know — a payload
 *   can carry only its recipient's own data, never another agent's identity or a secret.
 * - The serialized body is produced once ({@link serializeEvent}) and that exact string is
 *   signed, sent and logged.
 */
import { BAND_KEYS, Exact, parseFraction } from "@bouts/scoring";
import { z } from "zod";
import { err, ok, type Result } from "@bouts/result";

/** Every event type the platform sends. */
export const EVENT_TYPES = [
  "submission.scored",
  "submission.failed",
  "submission.rescored",
  "leaderboard.overtaken",
  "webhook.test",
] as const;
export const EventTypeSchema = z.enum(EVENT_TYPES);
/** The event types an endpoint can subscribe to (`webhook.test` is sent only on request). */
export const SUBSCRIBABLE_EVENT_TYPES = [
  "submission.scored",
  "submission.failed",
  "submission.rescored",
  "leaderboard.overtaken",
] as const satisfies readonly EventType[];
export type EventType = z.infer<typeof EventTypeSchema>;

const Id = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const Rank = z.int().min(1);
const Rounded = z.int().min(0).max(100);
// Links to our own API: https in production, http://localhost in local development.
const LinkUrl = z.url({ protocol: /^https?$/ });
const BandKeySchema = z.enum(BAND_KEYS);

/** Fraction digits of `score.unrounded`; a longer expansion is rounded half-up to this many. */
export const UNROUNDED_DECIMALS = 6;

/**
 * A score as published: rounded half-up, the unrounded value as a plain decimal (at most
 * {@link UNROUNDED_DECIMALS} places), and the exact value as a fraction in lowest terms. Most
 * scores do not terminate in decimal (e.g. 20263/300 = 67.54333…), so only `fraction` is exact;
 * the refinement checks that the three agree.
 */
export const WebhookScoreSchema = z
  .strictObject({
    rounded: Rounded,
    /** Parseable by any JSON or decimal reader, e.g. "82.075" or "67.543333" (never "…"). */
    unrounded: z.string().regex(/^(100|\d{1,2})(\.\d{1,6})?$/),
    /** The exact value: numerator / denominator, as strings (they may exceed 2^53). */
    fraction: z.strictObject({
      numerator: z.string().regex(/^\d{1,40}$/),
      denominator: z.string().regex(/^[1-9]\d{0,39}$/),
    }),
  })
  .refine((s) => agrees(s), {
    message: "rounded, unrounded and fraction must denote the same score (0..100)",
    path: ["fraction"],
  });
export type WebhookScore = z.infer<typeof WebhookScoreSchema>;

function agrees(s: {
  rounded: number;
  unrounded: string;
  fraction: { numerator: string; denominator: string };
}): boolean {
  const exact = parseFraction(`${s.fraction.numerator}/${s.fraction.denominator}`);
  if (!exact || exact.cmp(Exact.ZERO) < 0 || exact.cmp(Exact.of(100)) > 0) return false;
  const built = buildWebhookScore(exact);
  return built.rounded === s.rounded && built.unrounded === s.unrounded;
}

/**
 * The published form of an exact score: its half-up integer, its decimal to
 * {@link UNROUNDED_DECIMALS} places (half-up, without the breakdown's "…" marker) and its fraction.
 * @example buildWebhookScore(Exact.of(20263, 300)) // { rounded: 68, unrounded: "67.543333", fraction: { numerator: "20263", denominator: "300" } }
 */
export function buildWebhookScore(exact: Exact): WebhookScore {
  return {
    rounded: Number(exact.roundHalfUp()),
    unrounded: exact.toText(UNROUNDED_DECIMALS).replace("…", ""),
    fraction: { numerator: String(exact.num), denominator: String(exact.den) },
  };
}

// ─── Data of each event ───

/**
 * Who graded the judged components, as the breakdown's `judging` says: "heuristic" is the
 * offline static-analysis panel, never a model's judgement.
 */
export const WebhookJudgingSchema = z.strictObject({
  panel: z.enum(["heuristic", "model", "mixed", "unspecified"]),
  summary: z.string().min(1).max(1000),
});
export type WebhookJudging = z.infer<typeof WebhookJudgingSchema>;

export const SubmissionScoredDataSchema = z.strictObject({
  submissionId: Id,
  challengeId: Id,
  score: WebhookScoreSchema,
  band: z.strictObject({ key: BandKeySchema, label: z.string().min(1).max(40) }),
  judging: WebhookJudgingSchema,
  /** The agent's rank on the challenge leaderboard after this score; null if unranked. */
  rank: Rank.nullable(),
  breakdownUrl: LinkUrl,
});

export const SubmissionFailedDataSchema = z.strictObject({
  submissionId: Id,
  challengeId: Id,
  reason: z.strictObject({
    /** A stable kebab-case code, e.g. "run-timeout". */
    code: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/),
    message: z.string().min(1).max(1000),
  }),
  submissionUrl: LinkUrl,
});

/**
 * A counted submission re-run against a new challenge version that an operator promoted
 * (docs/design.md §30): its score on the version it replaced and on the new one, and the
 * agent's rank before and after.
 */
export const SubmissionRescoredDataSchema = z.strictObject({
  submissionId: Id,
  challengeId: Id,
  /** The challenge version now live, which the new score was computed on. */
  version: z.int().min(2),
  previousVersion: z.int().min(1),
  previousScore: WebhookScoreSchema,
  score: WebhookScoreSchema,
  band: z.strictObject({ key: BandKeySchema, label: z.string().min(1).max(40) }),
  /** The agent's rank before and after the promotion; null when it was (or is) unranked. */
  previousRank: Rank.nullable(),
  rank: Rank.nullable(),
  breakdownUrl: LinkUrl,
});

export const LeaderboardOvertakenDataSchema = z
  .strictObject({
    challengeId: Id,
    previousRank: Rank,
    newRank: Rank,
    yourScore: z.strictObject({ rounded: Rounded }),
    /** The public rounded score that now ranks above yours; the other agent is not named. */
    overtakingScore: z.strictObject({ rounded: Rounded }),
    leaderboardUrl: LinkUrl,
  })
  .refine((d) => d.newRank > d.previousRank, {
    message: "newRank must be worse (greater) than previousRank",
    path: ["newRank"],
  });

export const WebhookTestDataSchema = z.strictObject({
  endpointId: Id,
  message: z.string().min(1).max(200),
});

// ─── Envelope ───

const envelope = <T extends EventType, D extends z.ZodType>(type: T, data: D) =>
  z.strictObject({ type: z.literal(type), timestamp: z.iso.datetime(), data });

/** Any webhook event, discriminated by `type`. */
export const WebhookEventSchema = z.discriminatedUnion("type", [
  envelope("submission.scored", SubmissionScoredDataSchema),
  envelope("submission.failed", SubmissionFailedDataSchema),
  envelope("submission.rescored", SubmissionRescoredDataSchema),
  envelope("leaderboard.overtaken", LeaderboardOvertakenDataSchema),
  envelope("webhook.test", WebhookTestDataSchema),
]);
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;
export type SubmissionScoredData = z.infer<typeof SubmissionScoredDataSchema>;
export type SubmissionFailedData = z.infer<typeof SubmissionFailedDataSchema>;
export type SubmissionRescoredData = z.infer<typeof SubmissionRescoredDataSchema>;
export type LeaderboardOvertakenData = z.infer<typeof LeaderboardOvertakenDataSchema>;
export type WebhookTestData = z.infer<typeof WebhookTestDataSchema>;
/** The `data` of event type `T`. */
export type EventData<T extends EventType> = Extract<WebhookEvent, { type: T }>["data"];

/** Why an event could not be built: the fields that failed, as zod reported them. */
export type EventError = {
  reason: "invalid-event";
  type: string;
  issues: { path: string; message: string }[];
};

// ─── Builders ───

/**
 * Builds an event of `type` stamped with `now`, validating `data` against its strict schema.
 * @example
 * buildEvent("webhook.test", { endpointId: "ep_1", message: "hello" }, new Date())
 */
export function buildEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  now: Date,
): Result<Extract<WebhookEvent, { type: T }>, EventError> {
  return parseWebhookEvent({ type, timestamp: now.toISOString(), data }) as Result<
    Extract<WebhookEvent, { type: T }>,
    EventError
  >;
}

/** Builds `submission.scored` for the submitting agent. */
export const buildSubmissionScoredEvent = (data: SubmissionScoredData, now: Date) =>
  buildEvent("submission.scored", data, now);

/** Builds `submission.failed` for the submitting agent. */
export const buildSubmissionFailedEvent = (data: SubmissionFailedData, now: Date) =>
  buildEvent("submission.failed", data, now);

/** Builds `submission.rescored` for the submitting agent. */
export const buildSubmissionRescoredEvent = (data: SubmissionRescoredData, now: Date) =>
  buildEvent("submission.rescored", data, now);

/** Builds `leaderboard.overtaken` for the agent whose rank dropped. */
export const buildLeaderboardOvertakenEvent = (data: LeaderboardOvertakenData, now: Date) =>
  buildEvent("leaderboard.overtaken", data, now);

/** Builds the `webhook.test` event sent by "send a test event". */
export const buildWebhookTestEvent = (endpointId: string, now: Date) =>
  buildEvent(
    "webhook.test",
    { endpointId, message: "Test event from Bouts: your endpoint is reachable." },
    now,
  );

/** Parses an untrusted value (e.g. a JSON-decoded body) as a webhook event. */
export function parseWebhookEvent(value: unknown): Result<WebhookEvent, EventError> {
  const parsed = WebhookEventSchema.safeParse(value);
  if (parsed.success) return ok(parsed.data);
  const type =
    typeof value === "object" && value !== null && "type" in value ? String(value.type) : "";
  return err({
    reason: "invalid-event",
    type,
    issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
  });
}

/** Serializes an event to the body string that is signed and sent (compact JSON). */
export function serializeEvent(event: WebhookEvent): string {
  return JSON.stringify(event);
}
