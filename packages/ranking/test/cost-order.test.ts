/**
 * CostOrder: cost order with unknown costs last and ties in official order, keyset pages that
 * show every entry once, a ceiling that drops entries over it and those of unknown cost, the
 * ceiling in official order, refused foreign cursors, and the frontier.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeParetoFrontier } from "../src/cost.ts";
import { CostOrder, type CostEntry } from "../src/cost-order.ts";
import { compareStandings } from "../src/standing.ts";

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

/** Everything a cost order answers, read in full (every page through its cursors). */
function readAll(order: CostOrder, ceilings: readonly (bigint | null)[]) {
  const walk = (sort: "cost" | "rank", maxPicoUsd: bigint | null, limit: number) => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 100; guard++) {
      const page = order.page({ sort, limit, after, maxPicoUsd });
      if (!page.ok) throw new Error(page.error.detail);
      seen.push(...page.value.entries.map((e) => `${e.standing.agentId}:${e.picoUsd}`));
      seen.push(`total:${page.value.total}`);
      after = page.value.next;
      if (after === null) break;
    }
    return seen;
  };
  return {
    size: order.size,
    unknown: order.unknown,
    pages: ceilings.flatMap((max) => [walk("cost", max, 3), walk("rank", max, 4)]),
    counts: ceilings.map((max) => (max === null ? null : order.countAtMost(max))),
    priced: ids(order.pricedByRank(5)),
    frontier: order.frontier(),
  };
}

describe("CostOrder changes", () => {
  const agent = fc.integer({ min: 0, max: 11 }).map((k) => `agent-${k}`);
  const cost = fc.option(fc.bigInt({ min: 0n, max: 6n }), { nil: null, freq: 4 });
  const newEntry = fc.record({
    agent,
    cost,
    score: fc.integer({ min: 0, max: 4 }),
    iterations: fc.integer({ min: 1, max: 2 }),
    unrounded: fc.integer({ min: 0, max: 8 }),
  });
  const toEntry = (c: {
    agent: string;
    cost: bigint | null;
    score: number;
    iterations: number;
    unrounded: number;
  }): CostEntry => ({
    ...entry(c.agent, c.score, c.cost, c.iterations),
    unrounded: c.score + c.unrounded / 10,
  });
  const change = fc.oneof(
    { weight: 4, arbitrary: newEntry.map((e) => ({ kind: "set" as const, e })) },
    fc.record({ kind: fc.constant("remove" as const), agent }),
    // Several agents at once, as the object applies a version's changes.
    fc.record({
      kind: fc.constant("update" as const),
      drop: fc.array(agent, { maxLength: 3 }),
      sets: fc.uniqueArray(newEntry, { selector: (e) => e.agent, maxLength: 4 }),
    }),
    // A read between changes fills the caches a later change must keep up to date.
    fc.record({
      kind: fc.constant("read" as const),
      bound: fc.oneof(
        fc.constant("priced" as const),
        fc.option(fc.bigInt({ min: 0n, max: 6n }), { nil: null }),
      ),
    }),
  );

  /** One read in official order: the entries of known cost, or those under a ceiling. */
  const readBound = (order: CostOrder, bound: "priced" | bigint | null) =>
    bound === "priced"
      ? ids(order.pricedByRank(100))
      : order.page({ sort: "rank", limit: 100, maxPicoUsd: bound });

  it("answer as a fresh build of the same entries after any sequence of changes", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ agent, cost, score: fc.integer({ min: 0, max: 4 }) }), {
          selector: (r) => r.agent,
        }),
        fc.array(change, { maxLength: 30 }),
        (initial, changes) => {
          const held = new Map<string, CostEntry>();
          for (const r of initial) held.set(r.agent, entry(r.agent, r.score, r.cost));
          const order = CostOrder.build([...held.values()]);
          const ceilings = [null, 0n, 2n, 6n];
          let last: "priced" | bigint | null = "priced";
          for (const c of changes) {
            if (c.kind === "read") {
              last = c.bound;
              readBound(order, last);
              order.frontier();
              continue;
            }
            if (c.kind === "set") {
              order.set(toEntry(c.e));
              held.set(c.e.agent, toEntry(c.e));
            } else if (c.kind === "remove") {
              expect(order.remove(c.agent)).toBe(held.delete(c.agent));
            } else {
              const gone = new Set([...c.drop, ...c.sets.map((e) => e.agent)]);
              const dropped = [...gone].filter((id) => held.delete(id)).length;
              for (const e of c.sets) held.set(e.agent, toEntry(e));
              expect(order.update(c.drop, c.sets.map(toEntry))).toBe(dropped);
            }
            const fresh = CostOrder.build([...held.values()]);
            // The last read's selection first, as the change left it; then everything (which
            // replaces it), then the last read again so the next change meets it once more.
            expect(readBound(order, last)).toEqual(readBound(fresh, last));
            expect(readAll(order, ceilings)).toEqual(readAll(fresh, ceilings));
            readBound(order, last);
            order.frontier();
          }
          // The frontier read off the cost order is computeParetoFrontier's, ties included.
          const priced = [...held.values()]
            .filter((e) => e.picoUsd !== null)
            .sort((x, y) =>
              x.picoUsd! < y.picoUsd!
                ? -1
                : x.picoUsd! > y.picoUsd!
                  ? 1
                  : compareStandings(x.standing, y.standing),
            )
            .map((e) => ({ id: e.standing.agentId, picoUsd: e.picoUsd!, score: e.unrounded }));
          expect(order.frontier()).toEqual(computeParetoFrontier(priced));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("tells apart two agents whose ids hash alike", () => {
    // "costarring" and "liquid" share their FNV-1a hash, the key update scans for.
    const order = CostOrder.build([entry("costarring", 80, 5n), entry("liquid", 70, 3n)]);
    expect(order.remove("liquid")).toBe(true);
    expect(order.remove("liquid")).toBe(false);
    expect([order.size, order.countAtMost(5n)]).toEqual([1, 1]);
    order.set(entry("costarring", 90, 1n));
    const page = order.page({ sort: "cost", limit: 10 });
    expect(page.ok && page.value.entries.map((e) => [e.standing.agentId, e.picoUsd])).toEqual([
      ["costarring", 1n],
    ]);
  });
});
