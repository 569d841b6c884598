/**
 * @module contracts/webhook-events
 * Every webhook event, in one place: the list of event types (with the docs row of each, which
 * `npm run docs:events` writes into docs/webhooks.md and docs/api.md), the payload each
 * recipient receives (`WebhookEventSchema`, a union on `type` with typed `data`), and the
 * message a producer puts on the `bouts-webhooks` queue for the sender to turn into that payload
 * (`EventMessageSchema`, built only by {@link eventMessage}). Pure: zod and the engine's
 * vocabularies only.
 *
 * Invariants:
 * - `EVENT_TYPES` is the one list; every other list and map is derived from it or keyed by it,
 *   so an event type added without its docs row, payload or message data fails to compile.
 * - Every payload schema is strict, so a payload can carry only its recipient's own data, never
 *   another agent's identity or a secret.
 * - A producer writes every field of its event's data ({@link eventMessage} requires them all);
 *   the sender reads tolerantly: a field marked optional here is one the sender does not need or
 *   one that messages queued before it existed lack, and unknown keys are dropped.
 */
import { BAND_KEYS, Exact, parseFraction } from "@bouts/scoring";
import { z } from "zod";

// ─── Event types ───

/** Every event type the platform sends: the one list. */
export const EVENT_TYPES = [
  "submission.scored",
  "submission.failed",
  "submission.rescored",
  "leaderboard.overtaken",
  "webhook.test",
] as const;
export const EventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventTypeSchema>;

/** The event types sent only when asked for (never subscribed to, never queued). */
export const ON_REQUEST_EVENT_TYPES = ["webhook.test"] as const satisfies readonly EventType[];
/** An event type an endpoint can subscribe to; a producer queues these. */
export type SubscribableEventType = Exclude<EventType, (typeof ON_REQUEST_EVENT_TYPES)[number]>;
/** The event types an endpoint can subscribe to: every type but those sent on request. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly SubscribableEventType[] = EVENT_TYPES.filter(
  (t): t is SubscribableEventType => !(ON_REQUEST_EVENT_TYPES as readonly string[]).includes(t),
);

/**
 * What the docs say of each event: who receives it and its `data`, in Markdown. `npm run
 * docs:events` writes these rows into docs/webhooks.md's table of events.
 */
export const EVENT_DOCS: Record<EventType, { sentTo: string; data: string }> = {
  "submission.scored": {
    sentTo: "the submitting agent",
    data: "`submissionId`, `challengeId`, `score: { rounded, unrounded, fraction }`, `band: { key, label }`, `judging: { panel, summary }`, `rank` (1-based, or `null` if unranked), `breakdownUrl`",
  },
  "submission.failed": {
    sentTo: "the submitting agent",
    data: "`submissionId`, `challengeId`, `reason: { code, message }` (`code` is stable kebab-case, e.g. `run-timeout`), `submissionUrl`",
  },
  "submission.rescored": {
    sentTo: "the submitting agent",
    data: "`submissionId`, `challengeId`, `version` (now live), `previousVersion`, `previousScore` and `score` (each `{ rounded, unrounded, fraction }`), `band`, `previousRank` and `rank` (each `null` if unranked), `breakdownUrl`; sent when an operator promotes a new challenge version ([design.md §30](design.md#30-challenge-versions-are-rescored-in-the-shadows-and-promoted-in-one-batch))",
  },
  "leaderboard.overtaken": {
    sentTo: "the agent whose rank dropped",
    data: "`challengeId`, `previousRank`, `newRank` (always greater), `yourScore: { rounded }`, `overtakingScore: { rounded }`, `leaderboardUrl`; the other agent is not named",
  },
  "webhook.test": {
    sentTo: "the endpoint that asked for it",
    data: "`endpointId`, `message`",
  },
};

const Id = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const Rank = z.int().min(1);
const Rounded = z.int().min(0).max(100);
// Links to our own API: https in production, http://localhost in local development.
const LinkUrl = z.url({ protocol: /^https?$/ });
const BandKeySchema = z.enum(BAND_KEYS);

// ─── Scores as published ───

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

// ─── Payloads: the `data` each recipient receives ───

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

const envelope = <T extends EventType, D extends z.ZodType>(type: T, data: D) =>
  z.strictObject({ type: z.literal(type), timestamp: z.iso.datetime(), data });

/** Any webhook event as its recipient receives it (Standard Webhooks: `{ type, timestamp, data }`). */
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

// ─── Queue messages: what a producer sends for the sender to build the payload from ───

/** Decimal text of an unrounded score as stored, e.g. "82.075" or "67.543333…". */
const StoredDecimal = z.string().max(64);
/** An exact score as stored: "p/q" in lowest terms (`scores.final_fraction`). */
const StoredFraction = z.string().max(100);

/** The data of each queued event type: what its producer knows that the sender does not. */
const EVENT_MESSAGE_DATA = {
  "submission.scored": z.object({
    score: Rounded,
    /** For the record; the sender publishes the exact fraction instead. */
    unrounded: StoredDecimal.optional(),
    /** The exact score; the sender reads the stored one for a message queued before it existed. */
    fraction: StoredFraction.optional(),
    /** A band key (BAND_KEYS); the sender refuses an unknown one. */
    band: z.string(),
    /**
     * Who judged, from the stored breakdown (null when it predates provenance). Absent on messages
     * queued before it existed, or unreadable: the sender then says "unspecified", never "model".
     */
    judging: WebhookJudgingSchema.nullable().optional().catch(null),
    /** The agent's rank after this score; null if unranked. */
    rank: Rank.nullable(),
    /** For the record; the payload does not carry it. */
    iteration: z.int().min(1).optional(),
  }),
  "submission.failed": z.object({
    /** A kebab-case code or a sentence; the recipient gets both as `{ code, message }`. */
    reason: z.string(),
  }),
  "submission.rescored": z.object({
    version: z.int().min(2),
    previousVersion: z.int().min(1),
    score: Rounded,
    fraction: StoredFraction,
    previousScore: Rounded,
    previousFraction: StoredFraction,
    band: z.string(),
    previousRank: Rank.nullable(),
    rank: Rank.nullable(),
  }),
  "leaderboard.overtaken": z.object({
    previousRank: Rank,
    /** The recipient's rank now (greater than before). */
    rank: Rank,
    /** The rounded score of the submission that passed the recipient. */
    byScore: Rounded,
  }),
} satisfies Record<SubscribableEventType, z.ZodType>;

/** The identity of a queued event: deterministic id, recipient and subject. */
const eventMessageOf = <T extends SubscribableEventType>(type: T) =>
  z.object({
    v: z.literal(1),
    kind: z.literal("event"),
    /** Deterministic: the same submission never produces two different events of a type. */
    eventId: z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/),
    type: z.literal(type),
    /** The recipient. */
    agentId: z.string().min(1),
    challengeId: z.string().min(1),
    submissionId: z.string().min(1),
    data: EVENT_MESSAGE_DATA[type],
  });

/** An event as a producer queues it on `bouts-webhooks`, discriminated by `type`. */
export const EventMessageSchema = z.discriminatedUnion("type", [
  eventMessageOf("submission.scored"),
  eventMessageOf("submission.failed"),
  eventMessageOf("submission.rescored"),
  eventMessageOf("leaderboard.overtaken"),
]);
export type EventMessage = z.infer<typeof EventMessageSchema>;
/** The queued event of type `T`. */
export type EventMessageOf<T extends SubscribableEventType> = Extract<EventMessage, { type: T }>;

/** Every key present and nothing undefined: what a producer must write. */
type Complete<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/** The data a producer writes for event type `T`: every field, none left out. */
export type EventMessageData<T extends SubscribableEventType> = Complete<
  z.output<(typeof EVENT_MESSAGE_DATA)[T]>
>;

/** Who a queued event is for and what it is about. */
export interface EventMessageIds {
  /** Deterministic, e.g. `evt_<submission>_scored`: the sender dedupes by it. */
  eventId: string;
  agentId: string;
  challengeId: string;
  submissionId: string;
}

/**
 * The queue message of event `type`, the one way a producer builds it: `data` must hold every
 * field of the event's data, so a producer that leaves one out does not compile.
 * @example
 * eventMessage("leaderboard.overtaken", { eventId, agentId, challengeId, submissionId },
 *   { previousRank: 1, rank: 2, byScore: 88 })
 */
export function eventMessage<T extends SubscribableEventType>(
  type: T,
  ids: EventMessageIds,
  data: EventMessageData<T>,
): EventMessageOf<T> {
  // The signature pairs `type` with its data; TypeScript cannot follow that through a generic.
  return { v: 1, kind: "event", type, ...ids, data } as unknown as EventMessageOf<T>;
}

// ─── Every type is covered ───

type Missing<All, Covered> = [Exclude<All, Covered>] extends [never] ? true : Exclude<All, Covered>;
/** A type in EVENT_TYPES without a payload above fails here, naming it. */
const _everyTypeHasAPayload: Missing<EventType, WebhookEvent["type"]> = true;
/** A subscribable type without a queue message above fails here, naming it. */
const _everyTypeHasAMessage: Missing<SubscribableEventType, EventMessage["type"]> = true;
