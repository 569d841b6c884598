/**
 * @module leaderboard/schemas
 * Wire schemas of the public leaderboard API (params, queries, responses), registered in the
 * platform's one OpenAPI document under names that do not collide with the ingest API's.
 * Invariant: no schema here has a field for a bundle, a hidden test or a key.
 */
import { z } from "@hono/zod-openapi";
import { BreakdownViewSchema, CostViewSchema, UsdAmountSchema } from "@bouts/contracts";
import { AUDIT_ACTOR_KINDS, AUDIT_EVENT_TYPES } from "@bouts/db";
import { RANKING_MODES } from "@bouts/ranking";
import { BAND_KEYS, TRAJECTORY_CLASSES } from "@bouts/scoring";

/** What a ranking submission cost (docs/leaderboard.md, "Cost"). */
const CostView = CostViewSchema.openapi("SubmissionCost", {
  description:
    "Tokens per model priced exactly by the price table in force (`prices`): `usd` is exact " +
    "decimal text. `not-measured`: the telemetry reported no tokens (never zero); `not-priced`: " +
    "a model has no price, so no total is given. `agentWallMs` comes from the trace.",
});

/** The price table revision a read priced with. */
const PricesUsed = z
  .object({ revision: z.int(), asOf: z.string() })
  .nullable()
  .openapi({ description: "The price table revision used and its as-of date; null: none set." });

/** Challenge ids in paths: uuids or slugs. */
export const ChallengeParamSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/, "an id or slug")
    .openapi({ param: { name: "id", in: "path" }, example: "deep-merge" }),
});

/** A challenge and an agent. */
export const AgentParamSchema = ChallengeParamSchema.extend({
  agentId: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, "an agent id")
    .openapi({ param: { name: "agentId", in: "path" } }),
});

/** A submission id. */
export const SubmissionParamSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/, "a submission id")
    .openapi({ param: { name: "id", in: "path" } }),
});

/** Most entries a page holds; a larger `limit` is served as this. */
export const MAX_PAGE_LIMIT = 100;

/**
 * `limit` is an integer ≥ 1 (digits only; anything else, the empty string included, is 400),
 * served as at most 100; `cursor` is opaque.
 */
export const PageQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^[0-9]+$/, "must be an integer ≥ 1")
    .refine((s) => Number(s) >= 1, "must be an integer ≥ 1")
    .transform((s) => Math.min(MAX_PAGE_LIMIT, Number(s)))
    .optional()
    .openapi({
      param: { name: "limit", in: "query" },
      type: "integer",
      minimum: 1,
      pattern: undefined,
      description:
        "Entries per page (default 50); an integer ≥ 1, and above 100 the page holds 100. " +
        "Anything else, an empty value included, is 400.",
      example: 50,
    }),
  cursor: z
    .string()
    .max(2048)
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description:
        "The `next` cursor of the previous page; a cursor this API did not issue is 400.",
    }),
  sort: z
    .enum(["rank", "cost"])
    .optional()
    .openapi({
      param: { name: "sort", in: "query" },
      description:
        "`rank` (default): the official order. `cost`: cheapest first, entries whose cost is " +
        "not measured or not priced last, equal costs in official order. The rank shown is " +
        "always the official one. A cursor only continues the order that issued it.",
    }),
  maxCostUsd: UsdAmountSchema.optional().openapi({
    param: { name: "maxCostUsd", in: "query" },
    description:
      "Only entries proven to cost at most this many USD (decimal, up to 12 decimals); " +
      "entries whose cost is not measured or not priced are left out.",
    example: "0.5",
  }),
});

/** `status` filter of the challenge list. */
export const ChallengeListQuerySchema = z.object({
  status: z
    .enum(["published", "closed"])
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "Default: published." }),
});

const Timestamp = z.iso.datetime().openapi({ example: "2026-11-30T08:00:00.000Z" });
const Band = z.enum(BAND_KEYS);
const TrajectoryClass = z.enum(TRAJECTORY_CLASSES);

/** A challenge's public fields. */
export const PublicChallengeSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    description: z.string(),
    status: z.enum(["published", "closed"]),
    profile: z.string(),
    family: z.string(),
    rankingMode: z.enum(RANKING_MODES),
    maxIterations: z.int(),
    runtime: z.string().nullable(),
    deliverables: z.array(
      z.object({ path: z.string(), description: z.string(), required: z.boolean() }),
    ),
    publishedAt: Timestamp.nullable(),
    closedAt: Timestamp.nullable(),
    closesAt: Timestamp.nullable().describe("the deadline, or null for none"),
    version: z.int().min(1).describe("the live bundle version (docs/design.md §30)"),
    links: z.object({ leaderboard: z.string(), websocket: z.string() }),
  })
  .openapi("PublicChallenge");

export const PublicChallengeListSchema = z
  .object({ challenges: z.array(PublicChallengeSchema) })
  .openapi("PublicChallengeList");

/** How sure a rank is: docs/leaderboard.md, "Rank ranges and ties". */
const RankCertaintyFields = {
  rankRange: z.object({ best: z.int().min(1), worst: z.int().min(1) }).openapi({
    description:
      "The span of ranks the entry could take given every entry's 95 % score interval; " +
      "it contains `rank`, which stays the official one (rounded score, then tiebreaks).",
  }),
  tied: z.boolean().openapi({
    description: "True when the rank range spans more than one rank: statistically tied.",
  }),
  interval: z
    .object({ low: z.number().min(0).max(100), high: z.number().min(0).max(100) })
    .openapi({
      description:
        "The ranking score's 95 % interval on the unrounded scale (the breakdown's " +
        "`interval`); [score, score] for a score stored before intervals.",
    }),
};

/** One row of the board. */
export const BoardEntrySchema = z
  .object({
    ...RankCertaintyFields,
    rank: z.int().min(1),
    agentId: z.string(),
    agentName: z
      .string()
      .nullable()
      .openapi({
        description:
          "The agent's display name, chosen by its operator: untrusted text, escape it before " +
          "showing it. Null only for an agent the platform no longer has.",
      }),
    score: z.int().min(0).max(100),
    iterations: z.int().min(1),
    timeToFinalMs: z.int().min(0),
    submittedAt: Timestamp,
    band: Band,
    trajectoryClass: TrajectoryClass,
    cost: CostView,
  })
  .openapi("BoardEntry");

export const BandCountsSchema = z
  .object({
    elite: z.int(),
    strong: z.int(),
    competent: z.int(),
    struggling: z.int(),
    weak: z.int(),
    failed: z.int(),
  })
  .openapi("BandCounts");

/** A baseline on the board: a reference line, never ranked. */
export const BaselineLineSchema = z
  .object({
    agentId: z.string(),
    submissionId: z.string(),
    label: z.string(),
    kind: z.enum(["reference", "stub", "other"]),
    score: z.int(),
    unrounded: z.string(),
    afterRank: z.int().min(0).describe("how many ranked agents sit above this line"),
  })
  .openapi("BaselineLine");

export const LeaderboardPageSchema = z
  .object({
    challengeId: z.string(),
    version: z.int(),
    total: z.int(),
    entries: z.array(BoardEntrySchema),
    next: z
      .string()
      .nullable()
      .openapi({ description: "Cursor of the next page; null at the end." }),
    sort: z.enum(["rank", "cost"]),
    maxCostUsd: z.string().nullable(),
    prices: PricesUsed,
    bands: BandCountsSchema,
    baselines: z
      .array(BaselineLineSchema)
      .describe(
        "the challenge's baselines (reference solution, stub …), best first: marked reference " +
          "lines with no rank, each shown after the `afterRank` agents whose score is at least its own",
      ),
  })
  .openapi("LeaderboardPage");

export const StandingSchema = z
  .object({
    challengeId: z.string(),
    agentId: z.string(),
    rank: z.int().min(1),
    total: z.int(),
    score: z.int(),
    unrounded: z.string(),
    iterations: z.int(),
    timeToFinalMs: z.int(),
    submittedAt: Timestamp,
    submissionId: z.string(),
    band: Band,
    trajectory: z.array(z.object({ iteration: z.int(), score: z.int(), submissionId: z.string() })),
    trajectoryClass: TrajectoryClass,
    ...RankCertaintyFields,
    cost: CostView,
    around: z.array(BoardEntrySchema),
    version: z.int(),
  })
  .openapi("AgentStanding");

export const PublicBreakdownSchema = z
  .object({
    submissionId: z.string(),
    challengeId: z.string(),
    agentId: z.string(),
    view: z.enum(["public", "owner"]),
    profile: z.string(),
    profileVersion: z.int(),
    final: z.object({ unrounded: z.string(), rounded: z.int() }),
    scoredAt: Timestamp,
    cost: CostView,
    breakdown: BreakdownViewSchema.openapi({
      description:
        "The engine's breakdown (schema bouts.breakdown/v1): every component's weight, score and " +
        "contribution, every adjustment. The public view omits locations in the agent's code and " +
        "evidence citations; the owner view (the agent's own key) has them.",
    }),
  })
  .openapi("ScoreBreakdown");

/** One audit event: what changed, who changed it, why, when, and the state before and after. */
export const AuditEventSchema = z
  .object({
    seq: z.int().describe("position in the trail; pass the last one seen as `after`"),
    id: z.string(),
    type: z.enum(AUDIT_EVENT_TYPES),
    challengeId: z.string(),
    submissionId: z.string().nullable(),
    actor: z.object({
      kind: z.enum(AUDIT_ACTOR_KINDS),
      id: z.string().describe("the operator's id, or the platform role that acted"),
    }),
    cause: z.string(),
    before: z.record(z.string(), z.unknown()).nullable(),
    after: z.record(z.string(), z.unknown()).nullable(),
    at: z.iso.datetime(),
  })
  .openapi("AuditEvent");

/** A page of a history, oldest first. */
export const AuditHistorySchema = z
  .object({
    events: z.array(AuditEventSchema),
    next: z.int().nullable().describe("pass as `after` for the next page; null on the last"),
  })
  .openapi("AuditHistory");

/** Largest `after` a history accepts: 15 digits, below 2^53, so every value is exact (documented). */
export const MAX_HISTORY_AFTER = 999_999_999_999_999;

/** Paging of a history: events after a `seq`, at most `limit`. */
export const HistoryQuerySchema = z.object({
  after: z
    .string()
    .regex(/^[0-9]{1,15}$/, "must be a non-negative integer")
    .transform(Number)
    .optional()
    .openapi({
      param: { name: "after", in: "query" },
      type: "integer",
      minimum: 0,
      maximum: MAX_HISTORY_AFTER,
      pattern: undefined,
      description: "only events with a larger `seq` (the previous page's `next`)",
    }),
  limit: PageQuerySchema.shape.limit,
});

/** The score-against-cost plot of a board. */
export const CostPlotSchema = z
  .object({
    challengeId: z.string(),
    version: z.int(),
    prices: PricesUsed,
    total: z.int(),
    unknownCost: z
      .int()
      .openapi({ description: "Entries whose cost is not measured or not priced (not drawn)." }),
    points: z.array(
      z.object({
        agentId: z.string(),
        rank: z.int(),
        score: z.int(),
        unrounded: z.string(),
        usd: z.string(),
        onFrontier: z.boolean(),
      }),
    ),
    frontier: z
      .array(z.string())
      .openapi({ description: "Agent ids on the Pareto frontier, cheapest first." }),
  })
  .openapi("CostPlot");

/** A cost ceiling in decimal USD, for the other front doors (the MCP tools) to validate alike. */
export const MaxCostUsdSchema = UsdAmountSchema;
