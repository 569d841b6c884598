/**
 * CostOrder: cost order with unknown costs last and ties in official order, keyset pages that
 * show every entry once, a ceiling that drops entries over it and those of unknown cost, the
 * ceiling in official order, refused foreign cursors, and the frontier.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CostOrder, type CostEntry } from "./cost-order.ts";
import { compareStandings } from "./standing.ts";

const entry = (
  agentId: string,
  score: number,
  picoUsd: bigint | null,
  iterations = 1,
): CostEntry => ({
  standing: { agentId, score, iterations, timeToFinalMs: 1000, submittedAt: 5 },
  picoUsd,
  unrounded: score,
});

const board = [
  entry("a", 90, 900n),
  entry("b", 85, 100n),
  entry("c", 85, 100n, 2),
  entry("d", 70, null),
  entry("e", 60, 50n),
  entry("f", 95, null),
];

const ids = (entries: readonly CostEntry[]) => entries.map((e) => e.standing.agentId);

describe("CostOrder", () => {
  it("orders by cost, unknown last, equal costs in official order", () => {
    const order = CostOrder.build(board);
    const page = order.page({ sort: "cost", limit: 10 });
    expect(page.ok && ids(page.value.entries)).toEqual(["e", "b", "c", "a", "f", "d"]);
    expect(order.unknown).toBe(2);
  });

  it("keeps only entries proven to cost at most the ceiling, in either order", () => {
    const order = CostOrder.build(board);
    const byCost = order.page({ sort: "cost", limit: 10, maxPicoUsd: 100n });
    expect(byCost.ok && ids(byCost.value.entries)).toEqual(["e", "b", "c"]);
    const byRank = order.page({ sort: "rank", limit: 10, maxPicoUsd: 100n });
    expect(byRank.ok && ids(byRank.value.entries)).toEqual(["b", "c", "e"]);
    expect(byRank.ok && byRank.value.total).toBe(3);
    expect(order.countAtMost(0n)).toBe(0);
    expect(order.countAtMost(900n)).toBe(4);
  });

  it("refuses a cursor of the other order", () => {
    const order = CostOrder.build(board);
    const first = order.page({ sort: "rank", limit: 1, maxPicoUsd: 1000n });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const wrong = order.page({ sort: "cost", limit: 1, after: first.value.next });
    expect(wrong.ok).toBe(false);
    expect(order.page({ sort: "cost", limit: 1, after: "c1.zz!.r1" }).ok).toBe(false);
  });

  it("marks the Pareto frontier of unrounded score against cost", () => {
    expect(CostOrder.build(board).frontier()).toEqual(["e", "b", "c", "a"]);
  });

  it("pages show every selected entry exactly once, in order, for any board and page size", () => {
    const arb = fc.uniqueArray(
      fc.record({
        agentId: fc.string({ minLength: 1, maxLength: 4 }),
        score: fc.integer({ min: 0, max: 5 }),
        cost: fc.option(fc.bigInt({ min: 0n, max: 5n }), { nil: null }),
      }),
      { selector: (r) => r.agentId, maxLength: 40 },
    );
    fc.assert(
      fc.property(
        arb,
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom("cost" as const, "rank" as const),
        fc.option(fc.bigInt({ min: 0n, max: 5n }), { nil: null }),
        (rows, limit, sort, maxPicoUsd) => {
          const entries = rows.map((r) => entry(r.agentId, r.score, r.cost));
          const order = CostOrder.build(entries);
          const seen: CostEntry[] = [];
          let after: string | null = null;
          for (let guard = 0; guard < 100; guard++) {
            const page = order.page({ sort, limit, after, maxPicoUsd });
            if (!page.ok) return false;
            seen.push(...page.value.entries);
            after = page.value.next;
            if (after === null) break;
          }
          const kept = entries.filter(
            (e) => maxPicoUsd === null || (e.picoUsd !== null && e.picoUsd <= maxPicoUsd),
          );
          const expected =
            sort === "rank"
              ? [...kept].sort((x, y) => compareStandings(x.standing, y.standing))
              : CostOrder.build(kept).page({ sort: "cost", limit: 1000 });
          const want = Array.isArray(expected)
            ? expected
            : expected.ok
              ? expected.value.entries
              : [];
          return JSON.stringify(ids(seen)) === JSON.stringify(ids(want));
        },
      ),
    );
  });
});

describe("CostOrder.pricedByRank", () => {
  it("lists the best-ranked entries of known cost, in official order", () => {
    expect(ids(CostOrder.build(board).pricedByRank(3))).toEqual(["a", "b", "c"]);
  });
});
