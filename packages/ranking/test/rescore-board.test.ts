/**
 * What a candidate version does to a board: which submissions count, and each agent's place
 * before and after, by the live board's own rules.
 */
import { describe, expect, it } from "vitest";
import { compareBoards, countedSubmissionIds, rankBoard } from "../src/rescore-board.ts";
import type { ResultRecord } from "../src/standing-rules.ts";

const r = (agentId: string, iteration: number, score: number, submittedAt = iteration * 1000) =>
  ({
    submissionId: `${agentId}-${iteration}`,
    agentId,
    score,
    unrounded: String(score),
    iteration,
    enteredAt: 0,
    submittedAt,
    scoredAt: submittedAt + 1,
  }) satisfies ResultRecord;

describe("countedSubmissionIds", () => {
  const results = [r("a", 1, 90), r("a", 2, 70), r("a", 3, 80), r("b", 1, 60)];

  it("latest: each agent's latest only", () => {
    expect([...countedSubmissionIds(results, "latest")].sort()).toEqual(["a-3", "b-1"]);
  });

  it("best: each agent's best and its latest, so the iterations it used stay counted", () => {
    expect([...countedSubmissionIds(results, "best")].sort()).toEqual(["a-1", "a-3", "b-1"]);
  });

  it("an empty board counts nothing", () => {
    expect(countedSubmissionIds([], "best").size).toBe(0);
  });
});

describe("compareBoards", () => {
  it("ranks the new scores by the same tiebreaks and reports both places", () => {
    const live = [r("a", 1, 90), r("b", 1, 80), r("c", 1, 70)];
    const rescored = new Map([
      ["a-1", { score: 60, unrounded: "60" }],
      ["b-1", { score: 80, unrounded: "80" }],
      ["c-1", { score: 80, unrounded: "80.5" }],
    ]);
    const places = compareBoards(live, rescored, "latest");
    expect(places.map((p) => [p.agentId, p.before?.rank, p.after?.rank])).toEqual([
      // b and c tie at 80: the earlier submission (same time here, then agent id) stays ahead.
      ["b", 2, 1],
      ["c", 3, 2],
      ["a", 1, 3],
    ]);
    expect(places[2]!.after).toEqual({ rank: 3, submissionId: "a-1", score: 60, unrounded: "60" });
  });

  it("an agent with nothing rescored drops off the new board, listed last", () => {
    const live = [r("a", 1, 90), r("b", 1, 80)];
    const places = compareBoards(
      live,
      new Map([["b-1", { score: 85, unrounded: "85" }]]),
      "latest",
    );
    expect(places.map((p) => [p.agentId, p.before?.rank ?? null, p.after?.rank ?? null])).toEqual([
      ["b", 2, 1],
      ["a", 1, null],
    ]);
  });

  it("best mode: a rescore can change which submission ranks the agent", () => {
    const live = [r("a", 1, 90), r("a", 2, 70)];
    const rescored = new Map([
      ["a-1", { score: 50, unrounded: "50" }],
      ["a-2", { score: 75, unrounded: "75" }],
    ]);
    const [place] = compareBoards(live, rescored, "best");
    expect(place!.before?.submissionId).toBe("a-1");
    expect(place!.after?.submissionId).toBe("a-2");
    expect(rankBoard(live, "best").get("a")?.score).toBe(90);
  });

  it("does not depend on the order of the results", () => {
    const live = Array.from({ length: 150 }, (_, i) =>
      r(`agent-${i % 60}`, Math.floor(i / 60) + 1, (i * 37) % 101),
    );
    const rescored = new Map(
      live.map((x) => [x.submissionId, { score: (x.score * 7) % 101, unrounded: "x" }]),
    );
    const shuffled = [...live].reverse();
    expect(compareBoards(shuffled, rescored, "best")).toEqual(
      compareBoards(live, rescored, "best"),
    );
    // A board of more than 100 entries ranks every agent once, 1…60.
    expect(
      [...rankBoard(live, "latest").values()].map((p) => p.rank).sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });
});
