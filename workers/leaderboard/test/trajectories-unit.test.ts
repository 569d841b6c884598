/**
 * The object's `getTrajectories` read (what the public pages draw beside a row): every known
 * agent's ranking submission, unrounded score and history, unknown agents left out.
 */
import { describe, expect, it } from "vitest";
import { freshBoard, result } from "./helpers.ts";

describe("getTrajectories", () => {
  it("returns each agent's ranking submission and whole history, oldest first", async () => {
    const { challengeId, board } = freshBoard();
    await board.recordResult(result(challengeId, "a", 40, { iteration: 1 }));
    await board.recordResult(result(challengeId, "a", 70, { iteration: 2, unrounded: "70.25" }));
    await board.recordResult(result(challengeId, "b", 55));
    const views = await board.getTrajectories(["a", "b", "nobody"]);
    const byAgent = new Map(views.map((v) => [v.agentId, v]));
    expect(byAgent.size).toBe(2);
    expect(byAgent.get("a")).toEqual({
      agentId: "a",
      submissionId: "a-s2",
      unrounded: "70.25",
      trajectory: [
        { iteration: 1, score: 40, submissionId: "a-s1" },
        { iteration: 2, score: 70, submissionId: "a-s2" },
      ],
    });
    expect(byAgent.get("b")?.trajectory).toEqual([
      { iteration: 1, score: 55, submissionId: "b-s1" },
    ]);
  });

  it("answers nothing for no ids and reads at most 100", async () => {
    const { challengeId, board } = freshBoard();
    expect(await board.getTrajectories([])).toEqual([]);
    await board.recordResult(result(challengeId, "z", 10));
    const ids = [...Array.from({ length: 100 }, (_, i) => `x${i}`), "z"];
    expect(await board.getTrajectories(ids)).toEqual([]);
  });
});
