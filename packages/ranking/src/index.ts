/**
 * @module ranking
 * The in-memory ranking index of a challenge leaderboard (issue 6): ordering, tiebreaks,
 * ranks, keyset pages, neighbours and band counts in logarithmic time, in compact memory.
 * Pure: no I/O, no clock, no dependencies.
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
export type { RankingError, Result } from "./result.ts";
export {
  BANDS,
  MAX_AGENT_ID_LENGTH,
  MAX_ITERATIONS,
  assertStanding,
  compareStandings,
  resolveBand,
  validateStanding,
  type Band,
  type BandCounts,
  type RankedStanding,
  type Standing,
} from "./standing.ts";
