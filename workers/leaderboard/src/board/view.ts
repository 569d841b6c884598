/**
 * @module leaderboard/board/view
 * The one interface of the board's derived views (what the object keeps in memory beside its
 * SQLite truth) and the list that tells them all of a change. Invariants: a view's `read`
 * answers exactly what a view built afresh from storage would; the object tells every view of
 * every change through `BoardViews`, never one view by hand; a change a view cannot apply
 * drops every view to storage before the error goes on.
 */
import type { AgentStanding } from "@bouts/ranking";

/** One agent's standing changed: written to `standings` in the transaction just committed. */
export interface StandingChange {
  readonly agentId: string;
  /** The standing as stored now. */
  readonly standing: AgentStanding;
}

/**
 * A view derived from the board's storage, held in memory between calls. `read` builds or
 * updates what it holds as it needs; the hooks only note or drop, after the storage changed.
 */
export interface BoardView<Query, T> {
  /** One agent's standing changed (an applied result, stale ones included). */
  onStandingChanged(change: StandingChange): void;
  /**
   * Any standing may have changed: a rebuild, a recompute of every standing, or a change some
   * view failed to apply. Drop whatever was derived from storage.
   */
  onRebuild(): void;
  /** The view as of the storage now. */
  read(query: Query): T;
}

/** What the registry calls of a view: its hooks, whatever it reads. */
export type BoardViewHooks = Pick<BoardView<never, unknown>, "onStandingChanged" | "onRebuild">;

/** The registered views, told of every change in one place. */
export class BoardViews {
  readonly #views: readonly BoardViewHooks[];

  constructor(views: readonly BoardViewHooks[]) {
    this.#views = views;
  }

  /** The registered views, in the order they are told. */
  get views(): readonly BoardViewHooks[] {
    return this.#views;
  }

  /** Tells every view of a committed standing change. */
  standingChanged(change: StandingChange): void {
    try {
      for (const view of this.#views) view.onStandingChanged(change);
    } catch (err) {
      // Storage committed, some view did not follow: every view reads it afresh.
      this.rebuilt();
      throw err;
    }
  }

  /** Tells every view that any standing may have changed. */
  rebuilt(): void {
    for (const view of this.#views) view.onRebuild();
  }
}
