import { describe, expect, it } from "vitest";
import { compareStandings, validateStanding, type Standing } from "../src/standing.ts";
import { buildStanding, minutesSeconds } from "./support.ts";

const BASE = buildStanding({
  agentId: "m",
  score: 85,
  iterations: 2,
  timeToFinalMs: 1000,
  submittedAt: 5000,
});

describe("compareStandings", () => {
  it("ranks the engineering spec's one-shot 85 (22:14) above the four-iteration 85 (41:07)", () => {
    const a = buildStanding({
      agentId: "agent-a",
      score: 85,
      iterations: 1,
      timeToFinalMs: minutesSeconds("22:14"),
    });
    const b = buildStanding({
      agentId: "agent-b",
      score: 85,
      iterations: 4,
      timeToFinalMs: minutesSeconds("41:07"),
    });
    expect(compareStandings(a, b)).toBeLessThan(0);
    expect([b, a].sort(compareStandings).map((s) => s.agentId)).toEqual(["agent-a", "agent-b"]);
  });

  const levels: [string, Partial<Standing>, Partial<Standing>][] = [
    ["a higher score", { score: 86 }, { score: 85 }],
    ["fewer iterations on equal score", { iterations: 1 }, { iterations: 2 }],
    ["less time on equal score and iterations", { timeToFinalMs: 999 }, { timeToFinalMs: 1000 }],
    [
      "an earlier submission when everything else ties",
      { submittedAt: 4999 },
      { submittedAt: 5000 },
    ],
    [
      "the smaller agentId in code-unit order as the last resort",
      { agentId: "l" },
      { agentId: "m" },
    ],
  ];
  for (const [name, better, worse] of levels) {
    it(`prefers ${name}`, () => {
      const a = { ...BASE, ...better };
      const b = { ...BASE, ...worse };
      expect(compareStandings(a, b)).toBeLessThan(0);
      expect(compareStandings(b, a)).toBeGreaterThan(0);
    });
  }

  it("lets a higher score win over every later tiebreaker", () => {
    const a = {
      ...BASE,
      score: 86,
      iterations: 9,
      timeToFinalMs: 9e6,
      submittedAt: 9e9,
      agentId: "z",
    };
    expect(compareStandings(a, BASE)).toBeLessThan(0);
  });

  it("orders agentIds by UTF-16 code units, not by locale or code point", () => {
    const astral = { ...BASE, agentId: "\ud83d\ude00" };
    const bmp = { ...BASE, agentId: "\uffff" };
    expect(compareStandings(astral, bmp)).toBeLessThan(0);
    expect(compareStandings({ ...BASE, agentId: "B" }, { ...BASE, agentId: "a" })).toBeLessThan(0);
  });
});

describe("validateStanding", () => {
  const bad: [string, Partial<Standing>][] = [
    ["agentId", { agentId: "" }],
    ["agentId", { agentId: "x".repeat(257) }],
    ["score", { score: 101 }],
    ["score", { score: -1 }],
    ["score", { score: 84.5 }],
    ["score", { score: Number.NaN }],
    ["iterations", { iterations: 0 }],
    ["iterations", { iterations: 1.5 }],
    ["timeToFinalMs", { timeToFinalMs: -1 }],
    ["timeToFinalMs", { timeToFinalMs: Number.POSITIVE_INFINITY }],
    ["submittedAt", { submittedAt: -5 }],
    ["submittedAt", { submittedAt: 2 ** 53 }],
  ];
  for (const [field, override] of bad) {
    it(`refuses ${field} = ${JSON.stringify(Object.values(override)[0])?.slice(0, 20) ?? "NaN"}`, () => {
      const result = validateStanding({ ...BASE, ...override });
      expect(result).toMatchObject({ ok: false, error: { reason: "invalid-standing", field } });
    });
  }

  it("refuses a non-object", () => {
    expect(validateStanding(null as unknown as Standing).ok).toBe(false);
  });

  it("accepts the boundaries", () => {
    for (const score of [0, 100]) expect(validateStanding({ ...BASE, score }).ok).toBe(true);
    expect(
      validateStanding({ ...BASE, timeToFinalMs: 0, submittedAt: 0, agentId: "x".repeat(256) }).ok,
    ).toBe(true);
  });
});
