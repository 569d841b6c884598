/** @module ranking/private-board.test The private board from final choices, and its shake-up. */
import { describe, expect, it } from "vitest";
import { computePrivateBoard, type FullScore } from "../src/private-board.ts";
import type { ResultRecord } from "../src/standing-rules.ts";

const r = (agentId: string, iteration: number, score: number): ResultRecord => ({
  submissionId: `${agentId}-${iteration}`,
  agentId,
  score,
  unrounded: String(score),
  iteration,
  enteredAt: 0,
  submittedAt: iteration * 1000,
  scoredAt: iteration * 1000 + 1,
});
const full = (entries: [string, number][]) =>
  new Map<string, FullScore>(
    entries.map(([id, score]) => [id, { score, unrounded: String(score), interval: null }]),
  );

describe("computePrivateBoard", () => {
  const results = [r("a", 1, 90), r("a", 2, 80), r("b", 1, 85), r("c", 1, 70)];
  const fulls = full([
    ["a-1", 60],
    ["a-2", 75],
    ["b-1", 50],
    ["c-1", 72],
  ]);

  it("counts the latest submission when an agent chose none, and shows the shake-up", () => {
    const board = computePrivateBoard(results, fulls, new Map(), "latest", 0);
    expect(board.map((e) => [e.agentId, e.rank, e.publicRank, e.rankChange, e.chosen])).toEqual([
      ["a", 1, 2, 1, false],
      ["c", 2, 3, 1, false],
      ["b", 3, 1, -2, false],
    ]);
    expect(board[0]).toMatchObject({ submissionId: "a-2", score: 75, publicScore: 80 });
  });

  it("takes the best of the chosen submissions on the full suite", () => {
    const choices = new Map([["a", new Set(["a-1", "a-2"])]]);
    const board = computePrivateBoard(results, fulls, choices, "best", 0);
    const a = board.find((e) => e.agentId === "a")!;
    expect(a).toMatchObject({ submissionId: "a-2", chosen: true, score: 75, publicScore: 90 });
    const only = computePrivateBoard(
      results,
      fulls,
      new Map([["a", new Set(["a-1"])]]),
      "latest",
      0,
    );
    expect(only.find((e) => e.agentId === "a")).toMatchObject({ submissionId: "a-1", score: 60 });
  });

  it("breaks a tie by the earlier submission, not by the time since the agent's own entry", () => {
    const t0 = 1_000_000;
    // "early" entered at the opening and submitted after 44 minutes; "late" entered two hours
    // in with a prepared solution and submitted a second later. Same score, one iteration.
    const early = { ...r("early", 1, 80), enteredAt: t0, submittedAt: t0 + 44 * 60_000 };
    const late = { ...r("late", 1, 80), enteredAt: t0 + 7_200_000, submittedAt: t0 + 7_201_000 };
    const board = computePrivateBoard([late, early], new Map(), new Map(), "latest", t0);
    expect(board.map((e) => [e.agentId, e.rank, e.timeToFinalMs])).toEqual([
      ["early", 1, 44 * 60_000],
      ["late", 2, 7_201_000],
    ]);
  });

  it("does not depend on the order of the results", () => {
    const a = computePrivateBoard(results, fulls, new Map(), "latest", 0);
    const b = computePrivateBoard([...results].reverse(), fulls, new Map(), "latest", 0);
    expect(b).toEqual(a);
  });
});
