import { describe, expect, it } from "vitest";
import { buildRankingIndex, createRankingIndex, type RankingIndex } from "../src/ranking-index.ts";
import type { RankedStanding, Standing } from "../src/standing.ts";
import { buildStanding, minutesSeconds } from "./support.ts";

const TINY = { leafCapacity: 4, branchCapacity: 4 };

function ids(entries: readonly RankedStanding[]): string[] {
  return entries.map((e) => e.agentId);
}

function fill(index: RankingIndex, n: number): void {
  for (let i = 0; i < n; i++) {
    index.upsert(
      buildStanding({
        agentId: `agent-${String(i).padStart(4, "0")}`,
        score: i % 101,
        iterations: 1 + (i % 3),
      }),
    );
  }
}

function allPages(index: RankingIndex, limit: number): RankedStanding[] {
  const out: RankedStanding[] = [];
  let after: string | null = null;
  do {
    if (out.length > index.size) throw new Error("paging does not advance");
    const page = index.page({ limit, after });
    if (!page.ok) throw new Error(page.error.detail);
    out.push(...page.value.entries);
    after = page.value.next;
  } while (after !== null);
  return out;
}

describe("createRankingIndex", () => {
  it("ranks the engineering spec's example: 85 in 1 iteration at 22:14 beats 85 in 4 at 41:07", () => {
    const index = createRankingIndex();
    index.upsert(
      buildStanding({
        agentId: "agent-b",
        score: 85,
        iterations: 4,
        timeToFinalMs: minutesSeconds("41:07"),
      }),
    );
    const a = index.upsert(
      buildStanding({
        agentId: "agent-a",
        score: 85,
        iterations: 1,
        timeToFinalMs: minutesSeconds("22:14"),
      }),
    );
    expect(a).toEqual({ previousRank: null, rank: 1 });
    expect(index.rankOf("agent-b")).toBe(2);
  });

  it("moves an agent up and down as its standing changes, reporting both ranks", () => {
    const index = createRankingIndex(TINY);
    fill(index, 50);
    const mover = "agent-0010";
    const before = index.rankOf(mover)!;
    const up = index.upsert(
      buildStanding({
        agentId: mover,
        score: 100,
        iterations: 1,
        timeToFinalMs: 0,
        submittedAt: 0,
      }),
    );
    expect(up).toEqual({ previousRank: before, rank: 1 });
    const down = index.upsert(buildStanding({ agentId: mover, score: 0, iterations: 99 }));
    expect(down).toEqual({ previousRank: 1, rank: 50 });
    expect(index.size).toBe(50);
    index.verify();
  });

  it("reports an unchanged standing as an unchanged rank", () => {
    const index = createRankingIndex();
    const s = buildStanding({ agentId: "a", score: 70 });
    index.upsert(s);
    expect(index.upsert({ ...s })).toEqual({ previousRank: 1, rank: 1 });
  });

  it("gets, ranks and removes agents, answering null for unknown ones", () => {
    const index = createRankingIndex(TINY);
    const s = buildStanding({ agentId: "日本-agent", score: 91, iterations: 2 });
    index.upsert(s);
    index.upsert(buildStanding({ agentId: "other", score: 95 }));
    expect(index.get("日本-agent")).toEqual(s);
    expect(index.get("nobody")).toBeNull();
    expect(index.rankOf("nobody")).toBeNull();
    expect(index.remove("other")).toBe(1);
    expect(index.remove("other")).toBeNull();
    expect(index.rankOf("日本-agent")).toBe(1);
    expect(index.size).toBe(1);
  });

  it("throws a TypeError on an invalid standing and leaves the board as it was", () => {
    const index = createRankingIndex(TINY);
    fill(index, 20);
    const before = allPages(index, 7);
    const invalid: Standing[] = [
      buildStanding({ agentId: "agent-0001", score: 101 }),
      buildStanding({ agentId: "agent-0001", score: 50.5 }),
      buildStanding({ agentId: "new", timeToFinalMs: -1 }),
      buildStanding({ agentId: "new", iterations: 0 }),
      buildStanding({ agentId: "" }),
    ];
    for (const s of invalid) expect(() => index.upsert(s)).toThrow(TypeError);
    expect(allPages(index, 7)).toEqual(before);
    index.verify();
  });

  it("counts standings per band at the band edges", () => {
    const index = createRankingIndex(TINY);
    const scores = [100, 90, 89, 75, 74, 55, 54, 35, 34, 15, 14, 0, 0];
    scores.forEach((score, i) => index.upsert(buildStanding({ agentId: `a${i}`, score })));
    expect(index.countByBand()).toEqual({
      elite: 2,
      strong: 2,
      competent: 2,
      struggling: 2,
      weak: 2,
      failed: 3,
    });
    expect(createRankingIndex().countByBand()).toEqual({
      elite: 0,
      strong: 0,
      competent: 0,
      struggling: 0,
      weak: 0,
      failed: 0,
    });
  });

  it("answers around() with up to k neighbours on each side, clamped at the ends", () => {
    const index = createRankingIndex(TINY);
    fill(index, 30);
    const board = allPages(index, 100);
    const middle = board[14]!;
    expect(index.around(middle.agentId, 2)).toEqual(board.slice(12, 17));
    expect(index.around(board[0]!.agentId, 3)).toEqual(board.slice(0, 4));
    expect(index.around(board[29]!.agentId, 3)).toEqual(board.slice(26, 30));
    expect(index.around(middle.agentId, 0)).toEqual([middle]);
    expect(index.around("nobody", 3)).toBeNull();
    expect(() => index.around(middle.agentId, -1)).toThrow(TypeError);
  });

  it("pages through the board with ranks and ends with a null cursor", () => {
    const index = createRankingIndex(TINY);
    fill(index, 25);
    const board = allPages(index, 10);
    expect(board.map((e) => e.rank)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const first = index.page({ limit: 25 });
    expect(first.ok && first.value.next).toBeNull();
    expect(createRankingIndex().page({ limit: 5 })).toEqual({
      ok: true,
      value: { entries: [], next: null },
    });
    expect(() => index.page({ limit: 0 })).toThrow(TypeError);
  });

  it("rejects a garbage cursor as a value", () => {
    const index = createRankingIndex();
    fill(index, 3);
    expect(index.page({ limit: 2, after: "not-a-cursor" })).toMatchObject({
      ok: false,
      error: { reason: "bad-cursor" },
    });
  });

  it("keeps paging stable while the board changes: no unmoved entry is skipped or repeated", () => {
    const index = createRankingIndex(TINY);
    fill(index, 40);
    const first = index.page({ limit: 10 });
    if (!first.ok) throw new Error("page failed");
    const shown = ids(first.value.entries);
    // Between pages: a shown agent improves (stays above the cursor), an unshown agent jumps above
    // the cursor, a newcomer lands at the top, and a shown agent leaves the board.
    index.upsert(
      buildStanding({
        agentId: shown[5]!,
        score: 100,
        iterations: 1,
        timeToFinalMs: 0,
        submittedAt: 0,
      }),
    );
    const jumper = allPages(index, 100)[30]!.agentId;
    index.upsert(
      buildStanding({
        agentId: jumper,
        score: 100,
        iterations: 1,
        timeToFinalMs: 0,
        submittedAt: 1,
      }),
    );
    index.upsert(
      buildStanding({
        agentId: "newcomer",
        score: 100,
        iterations: 1,
        timeToFinalMs: 0,
        submittedAt: 2,
      }),
    );
    index.remove(shown[2]!);
    let after = first.value.next;
    const rest: string[] = [];
    while (after !== null) {
      const page = index.page({ limit: 10, after });
      if (!page.ok) throw new Error("page failed");
      rest.push(...ids(page.value.entries));
      after = page.value.next;
    }
    expect(rest.filter((id) => shown.includes(id))).toEqual([]);
    const unmoved = ids(allPages(index, 100)).filter(
      (id) => !shown.includes(id) && id !== jumper && id !== "newcomer",
    );
    expect(rest).toEqual(unmoved);
  });

  it("continues after a cursor whose own entry has since left the board", () => {
    const index = createRankingIndex(TINY);
    fill(index, 12);
    const first = index.page({ limit: 4 });
    if (!first.ok) throw new Error("page failed");
    const lastShown = first.value.entries[3]!;
    index.remove(lastShown.agentId);
    const second = index.page({ limit: 4, after: first.value.next });
    expect(second.ok && second.value.entries[0]!.rank).toBe(4);
    expect(second.ok && ids(second.value.entries)).toEqual(ids(allPages(index, 100)).slice(3, 7));
  });
});

describe("buildRankingIndex", () => {
  const standings = Array.from({ length: 300 }, (_, i) =>
    buildStanding({
      agentId: `id-${(i * 7919) % 1000}`,
      score: (i * 37) % 101,
      iterations: 1 + (i % 4),
      timeToFinalMs: i % 5,
    }),
  );

  it("equals an incrementally built index, whether the input is sorted or not", () => {
    const incremental = createRankingIndex(TINY);
    for (const s of standings) incremental.upsert(s);
    const expected = allPages(incremental, 1000);
    for (const input of [
      standings,
      [...standings].reverse(),
      expected.map(({ rank: _, ...s }) => s),
    ]) {
      const built = buildRankingIndex(input, TINY);
      built.verify();
      expect(allPages(built, 1000)).toEqual(expected);
      expect(built.countByBand()).toEqual(incremental.countByBand());
    }
  });

  it("stays consistent under updates and removals after a bulk build", () => {
    const built = buildRankingIndex(standings, TINY);
    for (const s of standings.slice(0, 150)) built.remove(s.agentId);
    for (const s of standings.slice(150, 200)) built.upsert({ ...s, score: 100 - s.score });
    built.verify();
    expect(built.size).toBe(150);
    expect(allPages(built, 1000).map((e) => e.rank)).toEqual(
      Array.from({ length: 150 }, (_, i) => i + 1),
    );
  });

  it("builds an empty index", () => {
    const built = buildRankingIndex([]);
    expect(built.size).toBe(0);
    expect(built.upsert(buildStanding({ agentId: "a" }))).toEqual({ previousRank: null, rank: 1 });
  });

  it("refuses duplicates and invalid rows with a TypeError", () => {
    const a = buildStanding({ agentId: "a" });
    expect(() => buildRankingIndex([a, { ...a, score: 10 }])).toThrow(/duplicate agentId/);
    expect(() => buildRankingIndex([a, buildStanding({ agentId: "b", score: 200 })])).toThrow(
      TypeError,
    );
  });

  it("refuses node sizes it cannot work with", () => {
    expect(() => createRankingIndex({ leafCapacity: 3 })).toThrow(TypeError);
    expect(() => createRankingIndex({ branchCapacity: 2.5 })).toThrow(TypeError);
  });
});
