/**
 * @module leaderboard/board
 * The derived views `ChallengeLeaderboard` keeps in memory beside its SQLite storage (whose
 * statements are all in `sql.ts`), each a `BoardView` registered in the one list that
 * `createBoardViews` makes. Invariant: every view is made here and registered, so every change
 * reaches it.
 */
import { RankCertaintyView } from "./certainty-view.ts";
import { CostOrderView } from "./cost-view.ts";
import { RankingView } from "./ranking-view.ts";
import { TrajectoriesView } from "./trajectory-view.ts";
import { BoardViews } from "./view.ts";

export { buildCostPlot, MAX_PLOT_POINTS, priceEntries, PriceTables } from "./cost-view.ts";
export type { RankedAgent } from "./certainty-view.ts";
export type { BoardView, BoardViewHooks, StandingChange } from "./view.ts";
export { BoardViews, RankCertaintyView, CostOrderView, RankingView, TrajectoriesView };

/** The board's views, each by name, and the list that tells them all of a change. */
export interface BoardViewSet {
  ranking: RankingView;
  certainty: RankCertaintyView;
  cost: CostOrderView;
  trajectories: TrajectoriesView;
  all: BoardViews;
}

/** Makes the board's views over `sql` and registers every one of them. */
export function createBoardViews(sql: SqlStorage): BoardViewSet {
  const ranking = new RankingView(sql);
  const certainty = new RankCertaintyView(sql, ranking);
  const cost = new CostOrderView(sql);
  const trajectories = new TrajectoriesView(sql);
  return {
    ranking,
    certainty,
    cost,
    trajectories,
    all: new BoardViews([ranking, certainty, cost, trajectories]),
  };
}
