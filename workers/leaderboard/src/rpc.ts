/**
 * @module leaderboard/rpc
 * The board's RPC contract, owned by `@bouts/contracts` (board.ts): the input schemas the
 * ChallengeLeaderboard object parses with, the answer types, and the `BoardRpc` interface it
 * implements. Re-exported for this role's own files.
 */
export {
  BaselineInputSchema,
  PageRequestSchema,
  RebuildInputSchema,
  RecordBaselineInputSchema,
  RecordResultInputSchema,
  ResultInputSchema,
  type BandCountsView,
  type BaselineInput,
  type BaselineLine,
  type BoardEntry,
  type BoardNamespace,
  type BoardPage,
  type BoardResult,
  type BoardRpc,
  type BoardStub,
  type BoardWriteError,
  type CostPlot,
  type Overtaken,
  type PageError,
  type PageRequest,
  type PricesInput,
  type RankCertainty,
  type RankChangedMessage,
  type RebuildInput,
  type RebuildOutcome,
  type RebuildRow,
  type RecordBaselineOutcome,
  type RecordResultInput,
  type RecordResultOutcome,
  type StandingView,
  type TrajectoryView,
} from "@bouts/contracts";
