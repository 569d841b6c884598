import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeCursor } from "../src/cursor.ts";
import {
  buildRankingIndex,
  createRankingIndex,
  type RankingIndex,
  type RankingIndexOptions,
} from "../src/ranking-index.ts";
import type { Standing } from "../src/standing.ts";
import { AGENT_IDS, ReferenceBoard, arbitraryStanding } from "./support.ts";

type Op =
  | { kind: "upsert"; standing: Standing }
  | { kind: "remove"; agentId: string }
  | { kind: "page"; limit: number; cut: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: arbitraryStanding(AGENT_IDS).map((standing) => ({
      kind: "upsert" as const,
      standing,
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(...AGENT_IDS)
      .map((agentId) => ({ kind: "remove" as const, agentId })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ limit: fc.integer({ min: 1, max: 5 }), cut: fc.nat() })
      .map((p) => ({ kind: "page" as const, ...p })),
  },
);

/** Many agent ids force many tree levels with tiny nodes. */
const MANY_IDS = Array.from({ length: 120 }, (_, i) => `agent-${i}`);

function expectSameBoard(index: RankingIndex, reference: ReferenceBoard): void {
  index.verify();
  const expected = reference.sorted();
  expect(index.size).toBe(expected.length);
  const all = index.page({ limit: expected.length + 1 });
  expect(all.ok && all.value.entries).toEqual(expected);
  for (const entry of expected) expect(index.rankOf(entry.agentId)).toBe(entry.rank);
  expect(index.countByBand()).toEqual(reference.bands());
}

function run(options: RankingIndexOptions, ids: readonly string[], ops: readonly Op[]): void {
  const index = createRankingIndex(options);
  const reference = new ReferenceBoard();
  for (const op of ops) {
    if (op.kind === "upsert") {
      expect(index.upsert(op.standing)).toEqual(reference.upsert(op.standing));
    } else if (op.kind === "remove") {
      expect(index.remove(op.agentId)).toBe(reference.remove(op.agentId));
    } else {
      // A page starting after an arbitrary entry's key must be the reference slice after it.
      const sorted = reference.sorted();
      const anchor = sorted[op.cut % Math.max(1, sorted.length)];
      if (anchor) {
        const { rank: _, ...key } = anchor;
        const next = index.page({ limit: op.limit, after: encodeCursor(key) });
        expect(next.ok && next.value.entries).toEqual(
          sorted.slice(anchor.rank, anchor.rank + op.limit),
        );
      }
    }
  }
  expectSameBoard(index, reference);
  for (const id of ids) {
    const rank = reference.rankOf(id);
    const expected =
      rank === null ? null : reference.sorted().slice(Math.max(0, rank - 3), rank + 2);
    expect(index.around(id, 2)).toEqual(expected);
  }
}

describe("ranking index against a brute-force reference", () => {
  it("agrees on ranks, pages, neighbours and bands after any upsert/remove sequence (tiny nodes)", () => {
    fc.assert(
      fc.property(fc.array(opArbitrary, { maxLength: 80 }), (ops) =>
        run({ leafCapacity: 4, branchCapacity: 4 }, AGENT_IDS, ops),
      ),
      { numRuns: 300 },
    );
  });

  it("agrees with many agents, deep trees and heavy removal", () => {
    const ops = fc.array(
      fc.oneof(
        {
          weight: 3,
          arbitrary: arbitraryStanding(MANY_IDS).map((standing) => ({
            kind: "upsert" as const,
            standing,
          })),
        },
        {
          weight: 2,
          arbitrary: fc
            .constantFrom(...MANY_IDS)
            .map((agentId) => ({ kind: "remove" as const, agentId })),
        },
      ),
      { minLength: 100, maxLength: 400 },
    );
    fc.assert(
      fc.property(
        ops,
        fc.constantFrom(4, 5, 8, 16),
        fc.constantFrom(4, 5, 8, 12),
        (sequence, leaf, branch) =>
          run({ leafCapacity: leaf, branchCapacity: branch }, MANY_IDS.slice(0, 10), sequence),
      ),
      { numRuns: 100 },
    );
  });

  it("agrees with default node sizes", () => {
    fc.assert(
      fc.property(fc.array(opArbitrary, { maxLength: 60 }), (ops) => run({}, AGENT_IDS, ops)),
      { numRuns: 100 },
    );
  });

  it("builds in bulk what incremental upserts build, then keeps agreeing", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(arbitraryStanding(MANY_IDS), { selector: (s) => s.agentId, maxLength: 120 }),
        fc.array(opArbitrary, { maxLength: 40 }),
        (rows, ops) => {
          const built = buildRankingIndex(rows, { leafCapacity: 4, branchCapacity: 4 });
          const reference = new ReferenceBoard();
          for (const row of rows) reference.upsert(row);
          expectSameBoard(built, reference);
          for (const op of ops) {
            if (op.kind === "upsert")
              expect(built.upsert(op.standing)).toEqual(reference.upsert(op.standing));
            if (op.kind === "remove")
              expect(built.remove(op.agentId)).toBe(reference.remove(op.agentId));
          }
          expectSameBoard(built, reference);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("pages without skipping or repeating unmoved entries while the board changes between pages", () => {
    const change = fc.oneof(
      arbitraryStanding(MANY_IDS).map((standing) => ({ kind: "upsert" as const, standing })),
      fc.constantFrom(...MANY_IDS).map((agentId) => ({ kind: "remove" as const, agentId })),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(arbitraryStanding(MANY_IDS), {
          selector: (s) => s.agentId,
          minLength: 1,
          maxLength: 120,
        }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.array(change, { maxLength: 4 }), { maxLength: 30 }),
        (rows, limit, changesBetweenPages) => {
          const index = buildRankingIndex(rows, { leafCapacity: 4, branchCapacity: 4 });
          const touched = new Set<string>();
          const seen: string[] = [];
          let after: string | null = null;
          let turn = 0;
          do {
            if (turn > rows.length + changesBetweenPages.length * 4 + 1)
              throw new Error("paging does not advance");
            const page = index.page({ limit, after });
            if (!page.ok) throw new Error(page.error.detail);
            const keys = page.value.entries;
            // Within a page, entries are in board order with consecutive ranks.
            keys.forEach((e, i) => i > 0 && expect(e.rank).toBe(keys[i - 1]!.rank + 1));
            seen.push(...keys.map((e) => e.agentId));
            after = page.value.next;
            for (const op of changesBetweenPages[turn++] ?? []) {
              touched.add(op.kind === "upsert" ? op.standing.agentId : op.agentId);
              if (op.kind === "upsert") index.upsert(op.standing);
              else index.remove(op.agentId);
            }
          } while (after !== null);
          const untouched = rows.map((r) => r.agentId).filter((id) => !touched.has(id));
          for (const id of untouched) expect(seen.filter((s) => s === id)).toHaveLength(1);
          // Pages never go backwards: each unmoved entry appears in the final board order.
          const finalOrder = new Map(
            (
              index.page({ limit: 1000 }) as { ok: true; value: { entries: { agentId: string }[] } }
            ).value.entries.map((e, i) => [e.agentId, i]),
          );
          const positions = seen.filter((id) => !touched.has(id)).map((id) => finalOrder.get(id)!);
          expect(positions).toEqual([...positions].sort((a, b) => a - b));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("ranking index node rebalancing", () => {
  // Random single upserts rarely leave an underfull node beside a full one; clustered inserts
  // (filling one leaf) followed by removal of a contiguous rank range (draining its neighbour)
  // reach the borrow paths of leaves and branches as well as merges and root changes.
  const clusterOp = fc.oneof(
    fc.record({
      kind: fc.constant("cluster" as const),
      at: fc.nat(),
      count: fc.integer({ min: 1, max: 12 }),
    }),
    fc.record({
      kind: fc.constant("drain" as const),
      at: fc.nat(),
      count: fc.integer({ min: 1, max: 20 }),
    }),
  );

  it("agrees with the reference under clustered inserts and range removals", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.array(clusterOp, { minLength: 1, maxLength: 25 }),
        fc.constantFrom(4, 8, 16),
        fc.constantFrom(4, 6, 8),
        (n, ops, leafCapacity, branchCapacity) => {
          const row = (agentId: string, time: number): Standing => ({
            agentId,
            score: 50,
            iterations: 1,
            timeToFinalMs: time,
            submittedAt: 0,
          });
          const rows = Array.from({ length: n }, (_, i) => row(`r${i}`, i * 1000));
          const index = buildRankingIndex(rows, { leafCapacity, branchCapacity });
          const reference = new ReferenceBoard();
          for (const r of rows) reference.upsert(r);
          let fresh = 0;
          for (const op of ops) {
            const sorted = reference.sorted();
            if (op.kind === "cluster") {
              const base = sorted.length === 0 ? 0 : sorted[op.at % sorted.length]!.timeToFinalMs;
              for (let j = 1; j <= op.count; j++) {
                // Same time as the base entry, later submission: lands right after it.
                const standing = { ...row(`c${fresh++}`, base), submittedAt: j };
                expect(index.upsert(standing)).toEqual(reference.upsert(standing));
              }
            } else {
              const start = sorted.length === 0 ? 0 : op.at % sorted.length;
              for (const entry of sorted.slice(start, start + op.count)) {
                expect(index.remove(entry.agentId)).toBe(reference.remove(entry.agentId));
              }
            }
            index.verify();
          }
          expectSameBoard(index, reference);
        },
      ),
      { numRuns: 300 },
    );
  }, 30_000);
});
