/**
 * @module leaderboard/board/trajectory-view
 * Each agent's trajectory (every scored iteration, oldest first), its class and its ranking
 * submission: what a page draws beside a row. Invariants: derived when a result is recorded and
 * stored with the standing in the same transaction, so this view holds nothing in memory and
 * its hooks have nothing to drop; one query per read, whatever the number of agents asked.
 */
import type { TrajectoryClass } from "@bouts/scoring";
import type { TrajectoryView } from "../rpc.ts";
import { listTrajectories, listTrajectoryClasses } from "./sql.ts";
import type { BoardView, StandingChange } from "./view.ts";

/** The trajectories of the given agents (unknown agents left out). */
export class TrajectoriesView implements BoardView<readonly string[], TrajectoryView[]> {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  onStandingChanged(_change: StandingChange): void {
    // Stored with the standing: nothing held to drop.
  }

  onRebuild(): void {
    // Stored with the standings: nothing held to drop.
  }

  read(agentIds: readonly string[]): TrajectoryView[] {
    return agentIds.length === 0 ? [] : listTrajectories(this.#sql, agentIds);
  }

  /** Each given agent's trajectory class. */
  classesOf(agentIds: readonly string[]): Map<string, TrajectoryClass> {
    return listTrajectoryClasses(this.#sql, agentIds);
  }
}
