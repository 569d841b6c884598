/**
 * @module ranking
 * The in-memory ranking index of a challenge leaderboard (issue 6): ordering, tiebreaks,
 * ranks, keyset pages, neighbours and band counts in logarithmic time, in compact memory; and
 * the one owner of standings: `Standing`, `compareStandings`, `RankingMode` and the rules that
 * turn an agent's results into its standing. Pure: no I/O, no clock; depends only on the pure
 * `@bouts/scoring` (bands, trajectories) and `@bouts/result`.
 */
export { decodeCursor, encodeCursor, type CursorKey } from "./cursor.ts";
export {
  RankingIndex,
  buildRankingIndex,
  createRankingIndex,
  type PageRequest,
  type RankingIndexOptions,
  type RankingPage,
  type UpsertResult,
} from "./ranking-index.ts";
export type { RankingError } from "./errors.ts";
export { computePrivateBoard, type FullScore, type PrivateBoardEntry } from "./private-board.ts";
export {
  compareBoards,
  countedSubmissionIds,
  rankBoard,
  type BoardPlace,
  type PlaceChange,
} from "./rescore-board.ts";
export {
  RANKING_MODES,
  computeAgentStanding,
  openingOf,
  sameRankingKey,
  timeToFinal,
  type AgentStanding,
  type RankingMode,
  type ResultRecord,
  type TrajectoryPoint,
} from "./standing-rules.ts";
export {
  MAX_AGENT_ID_LENGTH,
  MAX_ITERATIONS,
  assertStanding,
  compareStandings,
  validateStanding,
  type BandCounts,
  type RankedStanding,
  type Standing,
} from "./standing.ts";
export {
  countPaired,
  PAIRED_WINDOW,
  RankRanges,
  rangesOverlap,
  type IntervalEnds,
  type PairedCounts,
  type PairedEntry,
  type RankRange,
} from "./rank-ranges.ts";
export {
  compilePrices,
  computeCost,
  computeParetoFrontier,
  formatUsd,
  parseUsdAmount,
  parseUsdPerMTok,
  priceTokens,
  USD_AMOUNT_PATTERN,
  USD_PER_MTOK_PATTERN,
  type CompiledPrice,
  type CompiledPrices,
  type CostBreakdown,
  type UsageLike,
  type CostPoint,
  type CostResult,
  type ModelPrice,
  type PricedTokens,
  type PriceTable,
} from "./cost.ts";
export {
  compareCostEntries,
  CostOrder,
  decodeCostCursor,
  type CostEntry,
  type CostPage,
  type CostPageRequest,
  type CostSort,
} from "./cost-order.ts";
