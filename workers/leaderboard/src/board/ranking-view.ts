/**
 * @module leaderboard/board/ranking-view
 * The board in official order: the `@bouts/ranking` index over `standings`, the view every rank
 * comes from. Invariants: built lazily by the first read after a wake or a rebuild (never at
 * module load or in the constructor, so a `getVersion` wake costs nothing more); a changed
 * standing is moved in the index, not re-read; a rebuild may hand over the index it built.
 */
import { buildRankingIndex, sameRankingKey, type RankingIndex } from "@bouts/ranking";
import { listStandingsInBoardOrder } from "./sql.ts";
import type { BoardView, StandingChange } from "./view.ts";

/** The ranking index of the board's standings. */
export class RankingView implements BoardView<void, RankingIndex> {
  readonly #sql: SqlStorage;
  #index: RankingIndex | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  onStandingChanged({ agentId, standing }: StandingChange): void {
    const index = this.#index;
    // Not built: the next read builds it from storage, this standing included.
    if (index === null || sameRankingKey(index.get(agentId), standing)) return;
    index.upsert(standing);
  }

  onRebuild(): void {
    this.#index = null;
  }

  /** Holds `index`, built by the caller from exactly the standings just stored. */
  adopt(index: RankingIndex): void {
    this.#index = index;
  }

  read(): RankingIndex {
    // Rows come in board order through standings_board, so the build skips its sort.
    this.#index ??= buildRankingIndex(listStandingsInBoardOrder(this.#sql));
    return this.#index;
  }
}
