/**
 * The board's derived views (`src/board/`), each over a real object's SQLite storage: after a
 * standing change it was told of, and after a rebuild, `read` answers what a view built afresh
 * from storage answers, and not what it held before. Then the registry, and the object telling
 * every registered view of its changes.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import {
  buildRankingIndex,
  compilePrices,
  computeAgentStanding,
  type CostOrder,
  type RankingIndex,
} from "@bouts/ranking";
import {
  BoardViews,
  CostOrderView,
  RankCertaintyView,
  RankingView,
  TrajectoriesView,
  type BoardViewHooks,
  type StandingChange,
} from "../src/board/index.ts";
import * as boardSql from "../src/board/sql.ts";
import { BOARD_VIEWS } from "../src/leaderboard-object.ts";
import type { RebuildRow } from "../src/rpc.ts";
import { T0, freshBoard, result } from "./helpers.ts";

/** Runs `body` inside a fresh object, over its storage (the object's own views untouched). */
async function withStorage(body: (sql: SqlStorage) => void): Promise<void> {
  const { board } = freshBoard();
  await runInDurableObject(board, (_instance, state) => body(state.storage.sql));
}

/** A result row for `agentId` (see `result`), without the fields only `recordResult` takes. */
function row(agentId: string, score: number, over: Partial<RebuildRow> = {}): RebuildRow {
  const {
    challengeId: _c,
    rankingMode: _m,
    openedAt: _o,
    ...rest
  } = result("c", agentId, score, over);
  return rest;
}

/** Stores a result and the agent's standing as the object's transaction does; the change. */
function store(sql: SqlStorage, r: RebuildRow): StandingChange {
  boardSql.insertResult(sql, r, { ifNew: true });
  const standing = computeAgentStanding(boardSql.listResults(sql, r.agentId), "latest", T0)!;
  boardSql.writeStanding(sql, standing);
  return { agentId: r.agentId, standing };
}

/** Replaces the whole board's storage with `rows`, as a rebuild does. */
function storeOnly(sql: SqlStorage, rows: readonly RebuildRow[]): void {
  boardSql.clearBoard(sql);
  for (const r of rows) store(sql, r);
}

/** The board in official order, read afresh from storage every time. */
const freshRanking = (sql: SqlStorage) => ({
  read: (): RankingIndex => buildRankingIndex(boardSql.listStandingsInBoardOrder(sql)),
});

describe("RankingView", () => {
  const order = (index: RankingIndex) => {
    const page = index.page({ limit: 100 });
    if (!page.ok) throw new Error("page refused");
    return page.value.entries.map((e) => [e.rank, e.agentId, e.score]);
  };

  it("moves a changed standing, and reads a rebuilt board afresh", async () => {
    await withStorage((sql) => {
      const view = new RankingView(sql);
      store(sql, row("a", 50));
      store(sql, row("b", 60));
      const before = order(view.read());
      view.onStandingChanged(store(sql, row("a", 70, { iteration: 2 })));
      const changed = order(view.read());
      expect(changed).toEqual(order(freshRanking(sql).read()));
      expect(changed).not.toEqual(before);
      storeOnly(sql, [row("c", 10)]);
      view.onRebuild();
      expect(order(view.read())).toEqual([[1, "c", 10]]);
    });
  });

  it("takes over the index a rebuild hands it", async () => {
    await withStorage((sql) => {
      const view = new RankingView(sql);
      store(sql, row("a", 50));
      view.read();
      storeOnly(sql, [row("b", 20)]);
      view.onRebuild();
      const built = freshRanking(sql).read();
      view.adopt(built);
      expect(view.read()).toBe(built);
    });
  });
});

describe("RankCertaintyView", () => {
  /** Verdicts of 40 tests of which the first `passes` passed, 4 to a hex digit, high bit first. */
  function verdicts(passes: number): string {
    let out = "";
    for (let d = 0; d < 10; d++) {
      let v = 0;
      for (let b = 0; b < 4; b++) v = (v << 1) | (d * 4 + b < passes ? 1 : 0);
      out += v.toString(16);
    }
    return out;
  }
  /** One suite of 40 tests at half a point each; nothing unshared. */
  const pairing = (passes: number) => ({
    method: "paired-normal/v1" as const,
    suite: "suite-1",
    strata: [{ key: "static", n: 40, coef: 0.5, passed: verdicts(passes) }],
    ownVariance: 0,
  });
  const certainties = (view: RankCertaintyView, sql: SqlStorage) =>
    view.read(freshRanking(sql).read().slice(1, 100));

  it("follows a changed interval and a rebuilt board", async () => {
    await withStorage((sql) => {
      const view = new RankCertaintyView(sql, freshRanking(sql));
      const fresh = () => certainties(new RankCertaintyView(sql, freshRanking(sql)), sql);
      store(sql, row("x", 80, { interval: { low: 74, high: 86 } }));
      store(sql, row("y", 78, { interval: { low: 72, high: 84 } }));
      const before = certainties(view, sql);
      expect(before.map((c) => c.tied)).toEqual([true, true]);
      view.onStandingChanged(
        store(sql, row("y", 97, { iteration: 2, interval: { low: 95, high: 99 } })),
      );
      const changed = certainties(view, sql);
      expect(changed).toEqual(fresh());
      expect(changed.map((c) => c.tied)).toEqual([false, false]);
      storeOnly(sql, [row("x", 80, { interval: { low: 74, high: 86 } }), row("z", 79)]);
      view.onRebuild();
      const rebuilt = certainties(view, sql);
      expect(rebuilt).toEqual(fresh());
      expect(rebuilt).not.toEqual(changed);
    });
  });

  it("compares an agent's new ranking submission, not the one it read before", async () => {
    await withStorage((sql) => {
      const view = new RankCertaintyView(sql, freshRanking(sql));
      const fresh = () => certainties(new RankCertaintyView(sql, freshRanking(sql)), sql);
      const strong = { unrounded: "80", interval: { low: 76, high: 84 }, pairing: pairing(36) };
      store(sql, row("strong", 80, strong));
      store(sql, row("weak", 76, { ...strong, unrounded: "76", pairing: pairing(28) }));
      // The intervals overlap; the 8 tests only `strong` passed order the two.
      expect(certainties(view, sql).map((c) => c.tied)).toEqual([false, false]);
      // weak's second submission passes exactly strong's tests: tied now.
      view.onStandingChanged(store(sql, row("weak", 80, { ...strong, iteration: 2 })));
      const changed = certainties(view, sql);
      expect(changed).toEqual(fresh());
      expect(changed.map((c) => c.tied)).toEqual([true, true]);
      // A rebuild without that submission (a removal) compares the first ones again.
      storeOnly(sql, [
        row("strong", 80, strong),
        row("weak", 76, { ...strong, unrounded: "76", pairing: pairing(28) }),
      ]);
      view.onRebuild();
      const rebuilt = certainties(view, sql);
      expect(rebuilt).toEqual(fresh());
      expect(rebuilt.map((c) => c.tied)).toEqual([false, false]);
    });
  });
});

describe("CostOrderView", () => {
  const PRICES = compilePrices({
    revision: 1,
    asOf: "2026-12-01",
    models: { big: { inputUsdPerMTok: "3", outputUsdPerMTok: "15" } },
  });
  const usage = (tokensIn: number) => ({
    tokens: {
      models: [{ model: "big", tokensIn, tokensOut: 0, events: 1 }],
      tokensIn,
      tokensOut: 0,
      events: 1,
    },
    wallMs: 1000,
  });
  const byCost = (order: CostOrder) => {
    const page = order.page({ sort: "cost", limit: 100 });
    if (!page.ok) throw new Error("page refused");
    return {
      entries: page.value.entries.map((e) => [e.standing.agentId, e.standing.score, e.picoUsd]),
      frontier: order.frontier(),
    };
  };

  it("re-prices a changed standing, and reads a rebuilt board afresh", async () => {
    await withStorage((sql) => {
      const view = new CostOrderView(sql);
      const fresh = () => byCost(new CostOrderView(sql).read(PRICES));
      store(sql, row("a", 70, { usage: usage(1000) }));
      store(sql, row("b", 60, { usage: usage(2000) }));
      store(sql, row("c", 50));
      const before = byCost(view.read(PRICES));
      view.onStandingChanged(store(sql, row("b", 80, { iteration: 2, usage: usage(10) })));
      const changed = byCost(view.read(PRICES));
      expect(changed).toEqual(fresh());
      expect(changed).not.toEqual(before);
      storeOnly(sql, [row("a", 70, { usage: usage(5) }), row("d", 90, { usage: usage(50) })]);
      view.onRebuild();
      const rebuilt = byCost(view.read(PRICES));
      expect(rebuilt).toEqual(fresh());
      expect(rebuilt).not.toEqual(changed);
    });
  });
});

describe("TrajectoriesView", () => {
  it("reads a changed trajectory, and a rebuilt board's", async () => {
    await withStorage((sql) => {
      const view = new TrajectoriesView(sql);
      store(sql, row("a", 40));
      const before = view.read(["a"]);
      view.onStandingChanged(store(sql, row("a", 70, { iteration: 2 })));
      expect(view.read(["a"])[0]?.trajectory.map((p) => p.score)).toEqual([40, 70]);
      expect(view.classesOf(["a"]).get("a")).toBe("improving");
      storeOnly(sql, [row("a", 40)]);
      view.onRebuild();
      expect(view.read(["a"])).toEqual(before);
      expect(view.classesOf(["a"]).get("a")).toBe("one-shot");
    });
  });
});

describe("BoardViews", () => {
  const spyView = (): BoardViewHooks => ({ onStandingChanged: vi.fn(), onRebuild: vi.fn() });

  it("tells every view of a change and of a rebuild", () => {
    const views = [spyView(), spyView(), spyView()];
    const all = new BoardViews(views);
    const change = { agentId: "a" } as StandingChange;
    all.standingChanged(change);
    all.rebuilt();
    for (const view of views) {
      expect(view.onStandingChanged).toHaveBeenCalledExactlyOnceWith(change);
      expect(view.onRebuild).toHaveBeenCalledOnce();
    }
  });

  it("drops every view when one cannot take a change, and passes the error on", () => {
    const failing = spyView();
    vi.mocked(failing.onStandingChanged).mockImplementation(() => {
      throw new TypeError("bad standing");
    });
    const views = [spyView(), failing, spyView()];
    expect(() => new BoardViews(views).standingChanged({} as StandingChange)).toThrow(
      "bad standing",
    );
    for (const view of views) expect(view.onRebuild).toHaveBeenCalledOnce();
  });
});

describe("the object and its views", () => {
  it("tells every registered view of each standing change and of a rebuild", async () => {
    const { challengeId, board } = freshBoard();
    await runInDurableObject(board, (instance) => {
      const set = instance[BOARD_VIEWS]();
      const { all, ...named } = set;
      // Every view the object reads is registered.
      expect(all.views).toHaveLength(Object.keys(named).length);
      for (const view of Object.values(named)) expect(all.views).toContain(view);
      const spies = all.views.map((view) => ({
        changed: vi.spyOn(view, "onStandingChanged"),
        rebuilt: vi.spyOn(view, "onRebuild"),
      }));

      expect(instance.recordResult(result(challengeId, "a", 70)).ok).toBe(true);
      expect(instance.recordResult(result(challengeId, "a", 70)).ok).toBe(true); // a repeat
      const stale = result(challengeId, "a", 10, { iteration: 1, submissionId: "a-late" });
      expect(instance.recordResult(result(challengeId, "a", 80, { iteration: 2 })).ok).toBe(true);
      expect(instance.recordResult(stale).ok).toBe(true);
      for (const { changed, rebuilt } of spies) {
        // The first, the second iteration and the stale one; the repeat changed nothing.
        expect(changed.mock.calls.map(([c]) => [c.agentId, c.standing.score])).toEqual([
          ["a", 70],
          ["a", 80],
          ["a", 80],
        ]);
        expect(rebuilt).not.toHaveBeenCalled();
      }

      const rows = [row("b", 60)];
      expect(instance.rebuild({ challengeId, rankingMode: "latest", openedAt: T0, rows }).ok).toBe(
        true,
      );
      for (const { changed, rebuilt } of spies) {
        expect(changed).toHaveBeenCalledTimes(3);
        expect(rebuilt).toHaveBeenCalledOnce();
      }
      // The ranking view holds the index the rebuild built: the board is the rebuilt one.
      expect(set.ranking.read().size).toBe(1);
    });
  });
});
