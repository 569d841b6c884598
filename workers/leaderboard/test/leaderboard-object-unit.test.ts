/**
 * The ChallengeLeaderboard Durable Object through its RPC methods: ordering and tiebreaks,
 * idempotency, stale results, concurrency, latest vs best, overtaken reports, pages, rebuild,
 * eviction and WebSocket pushes. Each test names a fresh object (a random challenge id).
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type {
  ChallengeLeaderboard,
  RankChangedMessage,
  RecordResultOutcome,
} from "../src/index.ts";
import { computeScore, SEED_ENGINEERING_EXAMPLE } from "@bouts/scoring";
import { T0, freshBoard, mmss, result } from "./helpers.ts";

type Board = DurableObjectStub<ChallengeLeaderboard>;

/** Records a result and unwraps the outcome (fails the test on a refusal). */
async function record(
  board: Board,
  input: ReturnType<typeof result>,
): Promise<RecordResultOutcome> {
  const outcome = await board.recordResult(input);
  if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.error)}`);
  return outcome.value;
}

async function fullBoard(board: Board) {
  const page = await board.getPage({ limit: 100 });
  if (!page.ok) throw new Error("page refused");
  return page.value.entries.map((e) => [e.rank, e.agentId, e.score, e.iterations, e.timeToFinalMs]);
}

describe("ordering", () => {
  it("ranks 85 | 1 iteration | 22:14 above 85 | 4 | 41:07 (the engineering spec's example)", async () => {
    const { challengeId, board } = freshBoard();
    for (let i = 1; i <= 4; i++) {
      const submittedAt = i === 4 ? T0 + mmss("41:07") : T0 + i * 60_000;
      await record(
        board,
        result(challengeId, "slow", i === 4 ? 85 : 60 + i, { iteration: i, submittedAt }),
      );
    }
    await record(board, result(challengeId, "fast", 85, { submittedAt: T0 + mmss("22:14") }));
    await record(board, result(challengeId, "top", 86, { iteration: 1 }));
    expect(await fullBoard(board)).toEqual([
      [1, "top", 86, 1, 60_000],
      [2, "fast", 85, 1, mmss("22:14")],
      [3, "slow", 85, 4, mmss("41:07")],
    ]);
  });

  it("breaks a tie on score and iterations by the earlier submission, counted from the opening", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "slower", 70, { submittedAt: T0 + 90_000 }));
    await record(board, result(challengeId, "quick", 70, { submittedAt: T0 + 30_000 }));
    await record(board, result(challengeId, "zz-early", 70, { submittedAt: T0 + 60_000 }));
    expect((await fullBoard(board)).map((e) => [e[1], e[4]])).toEqual([
      ["quick", 30_000],
      ["zz-early", 60_000],
      ["slower", 90_000],
    ]);
  });

  it("ranks a late entry with a prepared solution below the identical score submitted 44 minutes earlier", async () => {
    const { challengeId, board } = freshBoard();
    // `honest` entered at the opening and worked an hour; `late` entered 104 min in and
    // submitted one second later: from its own entry it took 1 s, from the opening 104 min.
    await record(board, result(challengeId, "honest", 85, { submittedAt: T0 + mmss("60:00") }));
    await record(
      board,
      result(challengeId, "late", 85, {
        enteredAt: T0 + mmss("103:59"),
        submittedAt: T0 + mmss("104:00"),
      }),
    );
    expect(await fullBoard(board)).toEqual([
      [1, "honest", 85, 1, mmss("60:00")],
      [2, "late", 85, 1, mmss("104:00")],
    ]);
  });

  it("recomputes every standing once when a board recorded before it knew the opening learns it", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "a", 70, { submittedAt: T0 + 120_000 }));
    // A board written before the opening was recorded: no `opened_at`, each standing's time
    // counted from its agent's entry.
    await runInDurableObject(board, (_o, state) => {
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'opened_at'");
      state.storage.sql.exec("UPDATE standings SET time_to_final_ms = 1000");
    });
    await evictDurableObject(board);
    const woken = env.LEADERBOARD.getByName(challengeId);
    await record(woken, result(challengeId, "b", 70, { submittedAt: T0 + 180_000 }));
    expect((await fullBoard(woken)).map((e) => [e[1], e[4]])).toEqual([
      ["a", 120_000],
      ["b", 180_000],
    ]);
    expect(await woken.recordResult(result(challengeId, "c", 70, { openedAt: T0 + 1 }))).toEqual({
      ok: false,
      error: { reason: "wrong-opening", expected: T0, got: T0 + 1 },
    });
  });
});

describe("recording", () => {
  it("ignores a duplicate submission id: applied false, nothing changes", async () => {
    const { challengeId, board } = freshBoard();
    const first = await record(board, result(challengeId, "a", 70));
    expect(first).toMatchObject({ applied: true, rank: 1, previousRank: null, version: 1 });
    const again = await record(board, result(challengeId, "a", 99));
    expect(again).toMatchObject({ applied: false, rank: 1, previousRank: 1, version: 1 });
    expect(await board.getVersion()).toBe(1);
    expect((await board.getStanding("a"))?.score).toBe(70);
  });

  it("keeps a stale result in the history without changing the ranking (latest)", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "a", 70, { iteration: 2 }));
    const late = await record(board, result(challengeId, "a", 95, { iteration: 1 }));
    expect(late).toMatchObject({ applied: true, stale: true, rank: 1, previousRank: 1 });
    const standing = await board.getStanding("a");
    expect(standing).toMatchObject({ score: 70, iterations: 2, submissionId: "a-s2" });
    expect(standing?.trajectory.map((p) => p.score)).toEqual([95, 70]);
    expect(standing?.trajectoryClass).toBe("regression");
  });

  it("ranks by the latest scored submission by default and by the best with `best`", async () => {
    const latest = freshBoard();
    const best = freshBoard();
    for (const { challengeId, board } of [latest, best]) {
      const rankingMode = board === best.board ? "best" : "latest";
      await record(board, result(challengeId, "a", 80, { iteration: 1, rankingMode }));
      await record(board, result(challengeId, "a", 60, { iteration: 2, rankingMode }));
      await record(board, result(challengeId, "b", 70, { iteration: 1, rankingMode }));
    }
    expect((await fullBoard(latest.board)).map((e) => [e[1], e[2]])).toEqual([
      ["b", 70],
      ["a", 60],
    ]);
    const bestA = await best.board.getStanding("a");
    expect(bestA).toMatchObject({ rank: 1, score: 80, iterations: 2, submissionId: "a-s1" });
    expect(bestA?.timeToFinalMs).toBe(60_000);
  });

  it("gives a tie on the best score to the earlier submission", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "a", 80, { iteration: 2, rankingMode: "best" }));
    await record(board, result(challengeId, "a", 80, { iteration: 1, rankingMode: "best" }));
    expect(await board.getStanding("a")).toMatchObject({ submissionId: "a-s1", iterations: 2 });
  });

  it("refuses a result for another challenge or ranking mode", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "a", 80));
    expect(await board.recordResult(result("other", "b", 80))).toEqual({
      ok: false,
      error: { reason: "wrong-challenge", expected: challengeId, got: "other" },
    });
    expect(await board.recordResult(result(challengeId, "b", 80, { rankingMode: "best" }))).toEqual(
      { ok: false, error: { reason: "wrong-mode", expected: "latest", got: "best" } },
    );
    expect(await board.recordResult(result(challengeId, "b", 101))).toMatchObject({
      ok: false,
      error: { reason: "invalid-input" },
    });
    expect(await board.getVersion()).toBe(1);
  });

  it("gives the same board for 100 concurrent updates as for the same updates in order", async () => {
    const concurrent = freshBoard();
    const sequential = freshBoard();
    const inputs = [];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let agent = 0; agent < 20; agent++) {
      for (let iteration = 1; iteration <= 5; iteration++) {
        inputs.push({ agent: `agent-${agent}`, iteration, score: next() % 101 });
      }
    }
    const shuffled = [...inputs].sort(() => (next() % 3) - 1);
    await Promise.all(
      shuffled.map((i) =>
        concurrent.board.recordResult(
          result(concurrent.challengeId, i.agent, i.score, { iteration: i.iteration }),
        ),
      ),
    );
    for (const i of inputs) {
      await record(
        sequential.board,
        result(sequential.challengeId, i.agent, i.score, { iteration: i.iteration }),
      );
    }
    expect(await fullBoard(concurrent.board)).toEqual(await fullBoard(sequential.board));
    expect(await concurrent.board.getVersion()).toBe(100);
    for (const agent of ["agent-0", "agent-13"]) {
      const a = await concurrent.board.getStanding(agent);
      const b = await sequential.board.getStanding(agent);
      expect({ ...a, version: 0 }).toEqual({ ...b, version: 0 });
    }
  });

  it("reports the agents an update passed over, with their old and new ranks", async () => {
    const { challengeId, board } = freshBoard();
    for (const [agent, score] of [
      ["a", 50],
      ["b", 60],
      ["c", 70],
    ] as const) {
      await record(board, result(challengeId, agent, score));
    }
    const entered = await record(board, result(challengeId, "d", 80));
    expect(entered.overtaken).toEqual([
      { agentId: "c", previousRank: 1, rank: 2 },
      { agentId: "b", previousRank: 2, rank: 3 },
      { agentId: "a", previousRank: 3, rank: 4 },
    ]);
    const climbed = await record(board, result(challengeId, "a", 65, { iteration: 2 }));
    expect(climbed).toMatchObject({ rank: 3, previousRank: 4 });
    expect(climbed.overtaken).toEqual([{ agentId: "b", previousRank: 3, rank: 4 }]);
    const fell = await record(board, result(challengeId, "d", 10, { iteration: 2 }));
    expect(fell).toMatchObject({ rank: 4, previousRank: 1, overtaken: [] });
  });

  it("answers a repeated result with the overtaken list of its first application, on a board over 100", async () => {
    const { challengeId, board } = freshBoard();
    for (let i = 0; i < 105; i++) await record(board, result(challengeId, `p${i}`, 50));
    const first = await record(board, result(challengeId, "climber", 90));
    expect(first).toMatchObject({ applied: true, rank: 1, previousRank: null });
    expect(first.overtaken).toHaveLength(100);
    expect(first.overtaken[0]).toEqual({ agentId: "p0", previousRank: 1, rank: 2 });
    const again = await record(board, result(challengeId, "climber", 90));
    expect(again).toMatchObject({ applied: false, rank: 1, version: first.version });
    expect(again.overtaken).toEqual(first.overtaken);
    // Survives eviction: the list lives in SQLite with the result.
    await evictDurableObject(board);
    const woken = await record(
      env.LEADERBOARD.getByName(challengeId),
      result(challengeId, "climber", 90),
    );
    expect(woken.overtaken).toEqual(first.overtaken);
  });
});

describe("reads", () => {
  it("keeps pages stable while the board changes: unmoved entries exactly once", async () => {
    const { challengeId, board } = freshBoard();
    for (let i = 0; i < 30; i++) {
      await record(board, result(challengeId, `a${String(i).padStart(2, "0")}`, 20 + i * 2));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const page = await board.getPage({ limit: 7, cursor });
      if (!page.ok) throw new Error("refused");
      seen.push(...page.value.entries.map((e) => e.agentId));
      cursor = page.value.next;
      // Between pages: a newcomer at the top, and a top agent falls to the bottom.
      await record(board, result(challengeId, `new${round}`, 100));
      round += 1;
    } while (cursor !== null);
    const originals = seen.filter((a) => a.startsWith("a"));
    expect(new Set(originals).size).toBe(originals.length);
    expect(originals).toHaveLength(30);
    expect(originals).toEqual([...originals].sort().reverse());
  });

  it("refuses a garbage cursor and clamps the limit to 1..100", async () => {
    const { challengeId, board } = freshBoard();
    const rows = Array.from({ length: 130 }, (_, i) => {
      const {
        challengeId: _c,
        rankingMode: _m,
        openedAt: _o,
        ...row
      } = result(challengeId, `a${i}`, i % 101);
      return row;
    });
    await board.rebuild({ challengeId, rankingMode: "latest", openedAt: T0, rows });
    expect(await board.getPage({ limit: 10, cursor: "garbage" })).toMatchObject({
      ok: false,
      error: { reason: "bad-cursor" },
    });
    const big = await board.getPage({ limit: 10_000 });
    const small = await board.getPage({ limit: 0 });
    expect(big.ok && big.value.entries.length).toBe(100);
    expect(small.ok && small.value.entries.length).toBe(1);
  });

  it("answers neighbours, band counts and a missing agent", async () => {
    const { challengeId, board } = freshBoard();
    for (const [agent, score] of [
      ["e", 95],
      ["s", 80],
      ["c", 60],
      ["w", 20],
      ["f", 5],
    ] as const) {
      await record(board, result(challengeId, agent, score));
    }
    expect((await board.getAround("c", 1))?.map((e) => e.agentId)).toEqual(["s", "c", "w"]);
    expect(await board.getAround("nobody", 1)).toBeNull();
    expect(await board.getStanding("nobody")).toBeNull();
    expect(await board.getBandCounts()).toMatchObject({
      elite: 1,
      strong: 1,
      competent: 1,
      struggling: 0,
      weak: 1,
      failed: 1,
      total: 5,
    });
  });
});

describe("lifecycle", () => {
  it("rebuilds the whole board from rows, replacing what was there", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "gone", 99));
    const rows = [
      result(challengeId, "a", 50, { iteration: 1 }),
      result(challengeId, "a", 90, { iteration: 2 }),
      result(challengeId, "b", 70),
      result(challengeId, "b", 70), // a duplicate row changes nothing
    ].map(({ challengeId: _c, rankingMode: _m, openedAt: _o, ...row }) => row);
    const done = await board.rebuild({ challengeId, rankingMode: "latest", openedAt: T0, rows });
    expect(done).toEqual({ ok: true, value: { agents: 2, results: 3, version: 2 } });
    expect((await fullBoard(board)).map((e) => e[1])).toEqual(["a", "b"]);
    expect(await board.getStanding("a")).toMatchObject({
      score: 90,
      trajectoryClass: "improving",
    });
    expect(await board.getStanding("gone")).toBeNull();
    expect(
      await board.rebuild({
        challengeId,
        rankingMode: "latest",
        openedAt: T0,
        rows: [{ bad: true }],
      }),
    ).toMatchObject({ ok: false, error: { reason: "invalid-input" } });
    expect(await board.getVersion()).toBe(2);
  });

  it("survives eviction: the board, the history and the version come back from SQLite", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "a", 70));
    await record(board, result(challengeId, "b", 80));
    await record(board, result(challengeId, "a", 90, { iteration: 2 }));
    const before = await fullBoard(board);
    await evictDurableObject(board);
    const again = env.LEADERBOARD.getByName(challengeId);
    expect(await again.getVersion()).toBe(3);
    expect(await fullBoard(again)).toEqual(before);
    expect((await again.getStanding("a"))?.trajectory.map((p) => p.score)).toEqual([70, 90]);
    // Still idempotent after the wake: the history is in SQLite, not in memory.
    expect((await record(again, result(challengeId, "a", 1, { iteration: 2 }))).applied).toBe(
      false,
    );
    const tables = await runInDurableObject(again, (_instance, state) =>
      state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .toArray()
        .map((r) => r.name),
    );
    expect(tables).toEqual(expect.arrayContaining(["meta", "results", "standings"]));
  });

  it("pushes rank changes to WebSocket subscribers and answers ping with pong", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "a", 50));
    const res = await board.fetch("https://leaderboard.internal/ws", {
      headers: { Upgrade: "websocket" },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const messages: string[] = [];
    const arrived = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (messages.length >= n ? resolve() : setTimeout(check, 5));
        check();
      });
    ws.addEventListener("message", (e) => {
      messages.push(String(e.data));
    });
    ws.send("ping");
    await arrived(1);
    expect(messages[0]).toBe("pong");
    await record(board, result(challengeId, "b", 60));
    await arrived(2);
    const message = JSON.parse(messages[1]!) as RankChangedMessage;
    expect(message).toEqual({
      type: "rank-changed",
      version: 2,
      changes: [
        { agentId: "b", rank: 1, previousRank: null, score: 60 },
        { agentId: "a", rank: 2, previousRank: 1, score: 50 },
      ],
    });
    ws.close(1000, "done");
  });
});

describe("rank ranges and statistical ties", () => {
  /** A real breakdown's interval: the seed example with `passed` static tests of 20. */
  function scoredAt(passed: number, judge = 80, seed = "s") {
    const input = structuredClone(SEED_ENGINEERING_EXAMPLE);
    input.static = { passed, total: 20 };
    input.codeQuality.judges = input.codeQuality.judges.map((j, i) => ({
      ...j,
      dimensions: {
        readability: judge + i * 4,
        architecture: judge + i * 4,
        robustness: judge + i * 4,
        idiomaticity: judge + i * 4,
      },
    }));
    const b = computeScore(input, { interval: { seed } });
    if (!b.ok || !b.value.interval) throw new Error("example failed");
    return {
      score: b.value.final.rounded,
      unrounded: b.value.final.unrounded.text,
      interval: { low: b.value.interval.low.value, high: b.value.interval.high.value },
    };
  }

  it("marks two nearly equal agents tied and two distant ones not; official ranks unchanged", async () => {
    const { challengeId, board } = freshBoard();
    const a = scoredAt(18, 80, "submission:a");
    const b = scoredAt(17, 80, "submission:b");
    const far = scoredAt(4, 20, "submission:far");
    expect(a.score - b.score).toBeLessThanOrEqual(2);
    for (const [id, s] of [
      ["near-a", a],
      ["near-b", b],
      ["far", far],
    ] as const)
      await record(
        board,
        result(challengeId, id, s.score, { unrounded: s.unrounded, interval: s.interval }),
      );
    const page = await board.getPage({ limit: 10 });
    if (!page.ok) throw new Error("page refused");
    const [first, second, third] = page.value.entries;
    expect([first!.agentId, second!.agentId, third!.agentId]).toEqual(["near-a", "near-b", "far"]);
    expect([first!.rank, second!.rank, third!.rank]).toEqual([1, 2, 3]);
    expect(first).toMatchObject({
      rankRange: { best: 1, worst: 2 },
      tied: true,
      interval: a.interval,
    });
    expect(second).toMatchObject({ rankRange: { best: 1, worst: 2 }, tied: true });
    expect(third).toMatchObject({ rankRange: { best: 3, worst: 3 }, tied: false });
    const standing = await board.getStanding("far");
    expect(standing).toMatchObject({ rank: 3, rankRange: { best: 3, worst: 3 }, tied: false });
  });

  it("follows an agent's new ranking score, keeps ranges through a rebuild, and counts a score without interval as a point", async () => {
    const { challengeId, board } = freshBoard();
    await record(board, result(challengeId, "x", 80, { interval: { low: 74, high: 86 } }));
    await record(board, result(challengeId, "y", 78, { interval: { low: 72, high: 84 } }));
    await record(board, result(challengeId, "old", 79)); // stored before intervals: a point
    const ranges = async () => {
      const p = await board.getPage({ limit: 10 });
      if (!p.ok) throw new Error("page refused");
      return p.value.entries.map((e) => [e.agentId, e.rankRange.best, e.rankRange.worst, e.tied]);
    };
    expect(await ranges()).toEqual([
      ["x", 1, 3, true],
      ["old", 1, 3, true],
      ["y", 1, 3, true],
    ]);
    // y's second iteration is far ahead and sure of it: nobody ties with it any more.
    await record(
      board,
      result(challengeId, "y", 97, { iteration: 2, interval: { low: 95, high: 99 } }),
    );
    expect(await ranges()).toEqual([
      ["y", 1, 1, false],
      ["x", 2, 3, true],
      ["old", 2, 3, true],
    ]);
    const before = await ranges();
    const rebuilt = await board.rebuild({
      challengeId,
      rankingMode: "latest",
      openedAt: T0,
      rows: [
        { ...result(challengeId, "x", 80, { interval: { low: 74, high: 86 } }) },
        { ...result(challengeId, "y", 78, { interval: { low: 72, high: 84 } }) },
        { ...result(challengeId, "y", 97, { iteration: 2, interval: { low: 95, high: 99 } }) },
        { ...result(challengeId, "old", 79) },
      ].map(({ challengeId: _c, rankingMode: _m, openedAt: _o, ...row }) => row),
    });
    expect(rebuilt.ok).toBe(true);
    expect(await ranges()).toEqual(before);
    await evictDurableObject(board);
    expect(await ranges()).toEqual(before);
  });

  /** The seed example on a 40-test suite whose tests `pass(i)` pass, all adversarial tests passed. */
  function onSuite(pass: (i: number) => boolean, seed: string, rename = false) {
    const input = structuredClone(SEED_ENGINEERING_EXAMPLE);
    const tests = Array.from({ length: 40 }, (_, i) => ({
      id: rename && i === 0 ? "renamed" : `t${String(i).padStart(2, "0")}`,
      category: "functionality" as const,
      passed: pass(i),
    }));
    const passed = tests.filter((t) => t.passed).length;
    input.static = {
      passed,
      total: 40,
      categories: { functionality: { passed, total: 40 } },
      tests,
    };
    input.adversarial.tests = input.adversarial.tests.map((t) => ({ ...t, passed: true }));
    const b = computeScore(input, { interval: { seed } });
    if (!b.ok || !b.value.interval || !b.value.pairing) throw new Error("example failed");
    return {
      score: b.value.final.rounded,
      unrounded: b.value.final.unrounded.text,
      interval: { low: b.value.interval.low.value, high: b.value.interval.high.value },
      pairing: b.value.pairing,
    };
  }

  it("unties two agents whose intervals overlap when a paired comparison on the same tests orders them", async () => {
    const strong = onSuite((i) => i < 36, "submission:strong");
    const weak = onSuite((i) => i < 28, "submission:weak"); // fails 8 tests strong passes, no other
    const other = onSuite((i) => i < 32, "submission:other", true); // another suite: not paired
    expect(strong.interval.low).toBeLessThan(weak.interval.high);
    const ranges = async (board: Board) => {
      const p = await board.getPage({ limit: 10 });
      if (!p.ok) throw new Error("page refused");
      return p.value.entries.map((e) => [e.agentId, e.rankRange.best, e.rankRange.worst, e.tied]);
    };

    // Intervals alone: the two overlap, so both ranks are uncertain.
    const unpaired = freshBoard();
    for (const [id, s] of [
      ["strong", strong],
      ["weak", weak],
    ] as const)
      await record(
        unpaired.board,
        result(unpaired.challengeId, id, s.score, { unrounded: s.unrounded, interval: s.interval }),
      );
    expect(await ranges(unpaired.board)).toEqual([
      ["strong", 1, 2, true],
      ["weak", 1, 2, true],
    ]);

    // With their verdicts: only the 8 tests they differ on count, and that is enough.
    const { challengeId, board } = freshBoard();
    const rows = (
      [
        ["strong", strong],
        ["weak", weak],
        ["other", other],
      ] as const
    ).map(([id, s]) =>
      result(challengeId, id, s.score, {
        unrounded: s.unrounded,
        interval: s.interval,
        pairing: s.pairing,
      }),
    );
    for (const row of rows.slice(0, 2)) await record(board, row);
    expect(await ranges(board)).toEqual([
      ["strong", 1, 1, false],
      ["weak", 2, 2, false],
    ]);
    expect(await board.getStanding("weak")).toMatchObject({ rankRange: { best: 2, worst: 2 } });

    // An agent on another suite is compared by intervals alone: tied with whoever it overlaps.
    await record(board, rows[2]!);
    const three = await ranges(board);
    expect(three.find((e) => e[0] === "other")).toEqual(["other", 1, 3, true]);

    // A rebuild and an eviction keep the profiles.
    const rebuilt = await board.rebuild({
      challengeId,
      rankingMode: "latest",
      openedAt: T0,
      rows: rows.map(({ challengeId: _c, rankingMode: _m, openedAt: _o, ...row }) => row),
    });
    expect(rebuilt.ok).toBe(true);
    expect(await ranges(board)).toEqual(three);
    await evictDurableObject(board);
    expect(await ranges(board)).toEqual(three);
  });

  it("compares an agent's new ranking submission once it changes, as a fresh read would", async () => {
    const { challengeId, board } = freshBoard();
    const ranges = async (b: Board) => {
      const p = await b.getPage({ limit: 10 });
      if (!p.ok) throw new Error("page refused");
      return p.value.entries.map((e) => [e.agentId, e.rankRange.best, e.rankRange.worst, e.tied]);
    };
    const entry = (id: string, s: ReturnType<typeof onSuite>, iteration = 1) =>
      result(challengeId, id, s.score, {
        iteration,
        unrounded: s.unrounded,
        interval: s.interval,
        pairing: s.pairing,
      });
    const first = [
      entry(
        "strong",
        onSuite((i) => i < 36, "submission:strong"),
      ),
      entry(
        "weak",
        onSuite((i) => i < 28, "submission:weak"),
      ),
    ];
    for (const row of first) await record(board, row);
    const ordered = [
      ["strong", 1, 1, false],
      ["weak", 2, 2, false],
    ];
    expect(await ranges(board)).toEqual(ordered);
    // weak's second iteration passes exactly strong's tests: the two are tied now, and the
    // window must compare that submission, not the one it read before.
    await record(
      board,
      entry(
        "weak",
        onSuite((i) => i < 36, "submission:weak-2"),
        2,
      ),
    );
    const after = await ranges(board);
    expect(after.map((e) => e[3])).toEqual([true, true]);
    await evictDurableObject(board);
    const woken = env.LEADERBOARD.getByName(challengeId);
    expect(await ranges(woken)).toEqual(after);
    // A rebuild without that iteration (a removal) compares the first submissions again.
    const rebuilt = await woken.rebuild({
      challengeId,
      rankingMode: "latest",
      openedAt: T0,
      rows: first.map(({ challengeId: _c, rankingMode: _m, openedAt: _o, ...row }) => row),
    });
    expect(rebuilt.ok).toBe(true);
    expect(await ranges(woken)).toEqual(ordered);
  });

  it("refuses a pairing profile whose verdict bits do not match its test count", async () => {
    const { challengeId, board } = freshBoard();
    const s = onSuite(() => true, "submission:x");
    const forged = { ...s.pairing, strata: [{ ...s.pairing.strata[0]!, passed: "ff" }] };
    const refused = await board.recordResult(
      result(challengeId, "x", s.score, { interval: s.interval, pairing: forged }),
    );
    expect(refused).toMatchObject({ ok: false, error: { reason: "invalid-input" } });
    // The same profile with its true bits is taken: the refusal is the bits', not the field's.
    const taken = await board.recordResult(
      result(challengeId, "x", s.score, { interval: s.interval, pairing: s.pairing }),
    );
    expect(taken.ok).toBe(true);
  });

  it("refuses an interval whose low end exceeds its high end, changing nothing", async () => {
    const { challengeId, board } = freshBoard();
    const refused = await board.recordResult(
      result(challengeId, "x", 80, { interval: { low: 90, high: 70 } }),
    );
    expect(refused).toMatchObject({ ok: false, error: { reason: "invalid-input" } });
    const page = await board.getPage({ limit: 10 });
    expect(page.ok && page.value.total).toBe(0);
  });
});

describe("cost order", () => {
  const PRICES = {
    revision: 1,
    asOf: "2026-12-01",
    setAt: "2026-12-01T00:00:00Z",
    models: {
      big: { inputUsdPerMTok: "3", outputUsdPerMTok: "15" },
      small: { inputUsdPerMTok: "0.15", outputUsdPerMTok: "0.6" },
    },
  };
  const usageOf = (k: number) =>
    k % 5 === 4
      ? { tokens: null, wallMs: 1000 } // silent: not measured
      : {
          tokens: {
            models: [
              {
                model: ["big", "small", "unpriced", "small"][k % 4]!,
                tokensIn: 1000 * (1 + ((k * 7) % 5)),
                tokensOut: 10 * (k % 3),
                events: 1,
              },
            ],
            tokensIn: 1000 * (1 + ((k * 7) % 5)),
            tokensOut: 10 * (k % 3),
            events: 1,
          },
          wallMs: 1000,
        };

  /** Every cost read of the board: cost order and a ceiling, page by page, and the plot. */
  async function costReads(board: Board) {
    const walk = async (sort: "cost" | "rank", maxCostUsd?: string) => {
      const seen: unknown[] = [];
      let cursor: string | null = null;
      for (let guard = 0; guard < 50; guard++) {
        const page = await board.getPage({ limit: 3, sort, maxCostUsd, cursor, prices: PRICES });
        if (!page.ok) throw new Error(JSON.stringify(page.error));
        seen.push(...page.value.entries.map((e) => [e.agentId, e.rank, e.cost.usd]));
        seen.push(page.value.total);
        cursor = page.value.next;
        if (cursor === null) break;
      }
      return seen;
    };
    const plot = await board.getCostPlot(PRICES);
    if (!plot.ok) throw new Error("plot refused");
    const { version: _version, ...rest } = plot.value;
    return {
      byCost: await walk("cost"),
      ceiling: await walk("cost", "0.01"),
      ceilingByRank: await walk("rank", "0.01"),
      plot: rest,
    };
  }

  it("reads after each change exactly as a board built afresh from storage", async () => {
    const { challengeId, board } = freshBoard();
    for (let k = 0; k < 12; k++)
      await record(
        board,
        result(challengeId, `agent-${k}`, 50 + ((k * 13) % 40), { usage: usageOf(k) }),
      );
    let live = board;
    await costReads(live); // builds the order: what follows changes it one agent at a time
    const changes = [
      result(challengeId, "agent-3", 95, { iteration: 2, usage: usageOf(0) }), // cheaper and first
      result(challengeId, "agent-7", 40, { iteration: 2, usage: usageOf(1) }), // latest: drops
      result(challengeId, "newcomer", 70, { usage: usageOf(9) }),
      result(challengeId, "agent-3", 10, { iteration: 1 }), // stale: the history only
      result(challengeId, "agent-4", 60, { iteration: 2 }), // no usage: not measured
      result(challengeId, "agent-0", 62, { iteration: 2, usage: usageOf(3) }),
    ];
    for (const change of changes) {
      await record(live, change);
      if (change.agentId === "agent-4")
        await live.recordBaseline({
          challengeId,
          agentId: "baseline:ref",
          submissionId: "ref-s1",
          label: "reference",
          kind: "reference",
          score: 75,
          unrounded: "75",
          scoredAt: T0,
        });
      const kept = await costReads(live);
      await evictDurableObject(live);
      live = env.LEADERBOARD.getByName(challengeId);
      expect(kept).toEqual(await costReads(live));
    }
  });
});
