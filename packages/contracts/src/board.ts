/**
 * @module contracts/board
 * The call interface of the board: the `ChallengeLeaderboard` Durable Object (one per
 * challenge, workers/leaderboard), which implements {@link BoardRpc}; its callers in every role
 * hold it as a {@link BoardStub}. Zod schemas of the inputs (checked inside the object, since RPC
 * callers are other code, not clients) and the types of the answers. Invariant: everything here
 * is structured-clonable plain data. Pure: zod and the engines' vocabularies only.
 */
import { z } from "zod";
import { RunUsageSchema, PriceTableSchema } from "./cost.ts";
import { PairingProfileSchema } from "./scoring.ts";
import type { Result } from "@bouts/result";
import {
  MAX_AGENT_ID_LENGTH,
  RANKING_MODES,
  type BandCounts,
  type CostBreakdown,
  type RankingMode,
  type ResultRecord,
  type TrajectoryPoint,
} from "@bouts/ranking";
import type { BandKey, TrajectoryClass } from "@bouts/scoring";

const epochMs = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A scored result as the score worker reports it (one per submission). */
export const ResultInputSchema = z.strictObject({
  submissionId: z.string().min(1).max(128),
  agentId: z.string().min(1).max(MAX_AGENT_ID_LENGTH),
  /** Rounded final score: what ranks. */
  score: z.int().min(0).max(100),
  /** Exact unrounded final score as decimal text, e.g. "82.075". */
  unrounded: z.string().regex(/^\d{1,3}(\.\d+)?…?$/),
  iteration: z.int().min(1).max(0xffff_ffff),
  enteredAt: epochMs,
  submittedAt: epochMs,
  scoredAt: epochMs,
  /**
   * The breakdown's 95 % interval of the unrounded score (nearest doubles of its exact ends);
   * absent for scores stored before intervals, which then count as a point.
   */
  interval: z
    .strictObject({ low: z.number().min(0).max(100), high: z.number().min(0).max(100) })
    .refine((i) => i.low <= i.high, "interval low must not exceed high")
    .optional(),
  /** The breakdown's pairing profile, for the paired comparison on shared tests; optional. */
  pairing: PairingProfileSchema.optional(),
  /** What the run spent as its telemetry says (tokens per model); absent without a trace. */
  usage: RunUsageSchema.optional(),
});

/** Input of `recordResult`. */
export const RecordResultInputSchema = ResultInputSchema.extend({
  challengeId: z.string().min(1).max(128),
  rankingMode: z.enum(RANKING_MODES),
  /** The challenge's opening (its publication), epoch ms: time to final counts from it (§36). */
  openedAt: epochMs,
});
export type RecordResultInput = z.infer<typeof RecordResultInputSchema>;

/** A scored baseline (a reference line on the board: no rank, never overtakes anyone). */
export const BaselineInputSchema = z.strictObject({
  submissionId: z.string().min(1).max(256),
  agentId: z.string().min(1).max(MAX_AGENT_ID_LENGTH),
  label: z.string().min(1).max(80),
  kind: z.enum(["reference", "stub", "other"]),
  score: z.int().min(0).max(100),
  unrounded: z.string().regex(/^\d{1,3}(\.\d+)?…?$/),
  scoredAt: epochMs,
});
export type BaselineInput = z.infer<typeof BaselineInputSchema>;

/** Input of `recordBaseline`. */
export const RecordBaselineInputSchema = BaselineInputSchema.extend({
  challengeId: z.string().min(1).max(128),
});

/**
 * Input of `rebuild`: the challenge's whole result history, one row per scored submission, as
 * an operator route reads it from D1 (`scores` ⋈ `submissions` ⋈ `entries`), and its baselines.
 */
export const RebuildInputSchema = z.strictObject({
  challengeId: z.string().min(1).max(128),
  rankingMode: z.enum(RANKING_MODES),
  /** The challenge's opening (its publication), epoch ms: time to final counts from it (§36). */
  openedAt: epochMs,
  rows: z.array(ResultInputSchema),
  baselines: z.array(BaselineInputSchema).max(64).default([]),
});
export type RebuildInput = z.infer<typeof RebuildInputSchema>;
/** One row of a rebuild. */
export type RebuildRow = z.infer<typeof ResultInputSchema>;

/** An agent whose rank got worse because another agent passed it. */
export interface Overtaken {
  agentId: string;
  previousRank: number;
  rank: number;
}

/** What `recordResult` did. */
export interface RecordResultOutcome {
  /** False for a duplicate submission id: nothing changed. */
  applied: boolean;
  /** True when an older iteration arrived after a newer one (`latest`): history only. */
  stale: boolean;
  /** The agent's rank after the call (null only if it has no standing). */
  rank: number | null;
  /** The agent's rank before the call (null if it was not on the board). */
  previousRank: number | null;
  /**
   * Agents passed over by this update, nearest first, at most MAX_OVERTAKEN; for a duplicate,
   * the list stored when the result was first applied.
   */
  overtaken: Overtaken[];
  /** The board version after the call. */
  version: number;
}

/** How sure a rank is (docs/leaderboard.md, "Rank ranges and ties"). */
export interface RankCertainty {
  /** The span of ranks the entry could take given the 95 % intervals; contains `rank`. */
  rankRange: { best: number; worst: number };
  /** True when the range spans more than one rank: statistically tied with a neighbour. */
  tied: boolean;
  /** The entry's 95 % interval on the unrounded scale ([score, score] when none was stored). */
  interval: { low: number; high: number };
}

/**
 * A board read: a page in official order (`rank`, the default) or by cost (`cost`: cheapest
 * first, unknown cost last), optionally only entries proven to cost at most `maxCostUsd`
 * (decimal USD), each priced with `prices` (the price table in force; null when none is set).
 */
export const PageRequestSchema = z.strictObject({
  limit: z.number(),
  cursor: z.string().max(2048).nullable().optional(),
  sort: z.enum(["rank", "cost"]).default("rank"),
  maxCostUsd: z.string().max(32).nullable().optional(),
  prices: PriceTableSchema.nullable().optional(),
});
export type PageRequest = z.input<typeof PageRequestSchema>;

/** The price table a read prices with. */
export type PricesInput = z.infer<typeof PriceTableSchema> | null;

/** The score-against-cost plot of a board (docs/leaderboard.md, "Cost"). */
export interface CostPlot {
  version: number;
  prices: { revision: number; asOf: string } | null;
  /** Entries on the board, and those whose cost is not measured or not priced. */
  total: number;
  unknownCost: number;
  /** Priced entries: the best-ranked ones, and every frontier entry (each list capped). */
  points: {
    agentId: string;
    rank: number;
    score: number;
    unrounded: string;
    usd: string;
    onFrontier: boolean;
  }[];
  /** Agent ids on the Pareto frontier, cheapest first (capped like `points`). */
  frontier: string[];
}

/** One row of a board page. */
export interface BoardEntry extends RankCertainty {
  rank: number;
  agentId: string;
  score: number;
  iterations: number;
  timeToFinalMs: number;
  submittedAt: number;
  band: BandKey;
  trajectoryClass: TrajectoryClass;
  /** What the ranking submission cost, with the math per model. */
  cost: CostBreakdown;
}

/** A board page, the next page's cursor and the version it was read at. */
export interface BoardPage {
  entries: BoardEntry[];
  next: string | null;
  total: number;
  version: number;
}

/**
 * A baseline as the board shows it: a marked line placed after every agent whose score is at
 * least its own (`afterRank` agents), so it never overtakes anyone and takes no rank.
 */
export interface BaselineLine {
  agentId: string;
  submissionId: string;
  label: string;
  kind: "reference" | "stub" | "other";
  score: number;
  unrounded: string;
  afterRank: number;
}

/** One agent's standing in full. */
export interface StandingView extends RankCertainty {
  agentId: string;
  rank: number;
  total: number;
  score: number;
  unrounded: string;
  iterations: number;
  timeToFinalMs: number;
  submittedAt: number;
  submissionId: string;
  band: BandKey;
  trajectory: TrajectoryPoint[];
  trajectoryClass: TrajectoryClass;
  cost: CostBreakdown;
  version: number;
}

/** What a page draws beside a row: the ranking submission and the score history. */
export interface TrajectoryView {
  agentId: string;
  submissionId: string;
  unrounded: string;
  trajectory: TrajectoryPoint[];
}

/** Counts per interpretation band. */
export type BandCountsView = BandCounts & { total: number; version: number };

/** Why the object refused a write; nothing changed. Values, not throws: an exception thrown
 * across RPC loses its type and surfaces as an unhandled rejection inside the object. */
export type BoardWriteError =
  | { reason: "invalid-input"; detail: string }
  | { reason: "wrong-challenge"; expected: string; got: string }
  | { reason: "wrong-mode"; expected: RankingMode; got: RankingMode }
  | { reason: "wrong-opening"; expected: number; got: number };

/** A value or a refusal. */
export type BoardResult<T, E = BoardWriteError> = Result<T, E>;

/** A page request's refusal. */
export type PageError =
  { reason: "bad-cursor"; detail: string } | { reason: "bad-request"; detail: string };

/** The WebSocket message sent on every board change. */
export interface RankChangedMessage {
  type: "rank-changed";
  version: number;
  changes: { agentId: string; rank: number | null; previousRank: number | null; score: number }[];
}

// ─── The interface ───

/** What `recordBaseline` did. */
export interface RecordBaselineOutcome {
  /** False for a repeat: nothing changed. */
  applied: boolean;
  /** The board version after the call. */
  version: number;
}

/** What `rebuild` did. */
export interface RebuildOutcome {
  agents: number;
  results: number;
  version: number;
}

/**
 * The board's RPC methods, as the Durable Object implements them. Inputs are typed for callers;
 * the object still parses each one with its schema, since a caller's type is not a check.
 */
export interface BoardRpc {
  /**
   * Records one scored submission and updates the agent's standing; idempotent by submission
   * id. Refuses (as a value, changing nothing) malformed input and a challenge, ranking mode or
   * opening that contradicts the recorded one.
   */
  recordResult(input: z.input<typeof RecordResultInputSchema>): BoardResult<RecordResultOutcome>;
  /** Records a scored baseline as a reference line: no rank, never overtakes anyone. */
  recordBaseline(
    input: z.input<typeof RecordBaselineInputSchema>,
  ): BoardResult<RecordBaselineOutcome>;
  /** Replaces the whole board with the challenge's result history; atomic. */
  rebuild(input: z.input<typeof RebuildInputSchema>): BoardResult<RebuildOutcome>;
  /** A page of the board in official or cost order, each entry priced. */
  getPage(request: PageRequest): BoardResult<BoardPage, PageError>;
  /** The board's score against cost: best-ranked priced entries and the Pareto frontier. */
  getCostPlot(prices: PricesInput | undefined): BoardResult<CostPlot, PageError>;
  /** One agent's standing in full, or null when it has none. */
  getStanding(agentId: string, prices?: PricesInput): StandingView | null;
  /** The agent with up to `k` (≤ 50) entries above and below it, or null when absent. */
  getAround(agentId: string, k: number, prices?: PricesInput): BoardEntry[] | null;
  /** The ranking submission, unrounded score and trajectory of each given agent. */
  getTrajectories(agentIds: string[]): TrajectoryView[];
  /** Number of agents per interpretation band. */
  getBandCounts(): BandCountsView;
  /** The board's baselines, best first, each placed after the agents at least as good. */
  getBaselines(): BaselineLine[];
  /** The board version: +1 on every change. */
  getVersion(): number;
}

/** The board as a caller holds it (`env.LEADERBOARD.getByName(challengeId)`): every call answers a promise. */
export type BoardStub = {
  [K in keyof BoardRpc]: (...args: Parameters<BoardRpc[K]>) => Promise<ReturnType<BoardRpc[K]>>;
};

/** The board's binding (`LEADERBOARD`): one object per challenge, named by challenge id. */
export interface BoardNamespace<Stub = BoardStub> {
  getByName(challengeId: string): Stub;
}

/** A board input row is a ranking record (`@bouts/ranking` ResultRecord), plus its extras. */
const _rowIsARecord: RebuildRow extends ResultRecord ? true : never = true;
