import { formatDuration } from "@bouts/scoring";
import { describe, expect, it } from "vitest";
import { compareStandings, type Standing } from "../src/index.ts";

const at = (
  agentId: string,
  score: number,
  iterations: number,
  mmss: string,
  submittedAt = 0,
): Standing => {
  const [m, s] = mmss.split(":").map(Number);
  return {
    agentId,
    score,
    iterations,
    timeToFinalMs: ((m ?? 0) * 60 + (s ?? 0)) * 1000,
    submittedAt,
  };
};

describe("leaderboard order", () => {
  it("breaks the engineering spec's tie on iterations: 85 / 1 / 22:14 beats 85 / 4 / 41:07", () => {
    const a = at("agent-a", 85, 1, "22:14");
    const b = at("agent-b", 85, 4, "41:07");
    expect([b, a].sort(compareStandings).map((s) => s.agentId)).toEqual(["agent-a", "agent-b"]);
    expect(formatDuration(a.timeToFinalMs)).toBe("22:14");
  });
  it("orders by score, iterations, time, submission time, then agent id", () => {
    const list = [
      at("e", 80, 1, "01:00", 5),
      at("d", 85, 2, "10:00", 2),
      at("c", 85, 2, "10:00", 1),
      at("b", 85, 2, "09:00", 9),
      at("a", 90, 9, "59:00", 9),
      at("f", 85, 2, "10:00", 1),
    ];
    expect([...list].sort(compareStandings).map((s) => s.agentId)).toEqual([
      "a",
      "b",
      "c",
      "f",
      "d",
      "e",
    ]);
  });
});
