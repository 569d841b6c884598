/**
 * @module ranking/standing-rules.test
 * Time to final counts from the challenge's opening (docs/design.md §36): an agent cannot buy a
 * tiebreak by entering late with a prepared solution.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareStandings } from "../src/standing.ts";
import { computeAgentStanding, openingOf, type ResultRecord } from "../src/standing-rules.ts";

const T0 = 1_700_000_000_000;
const MIN = 60_000;

const result = (agentId: string, over: Partial<ResultRecord> = {}): ResultRecord => ({
  submissionId: `${agentId}-1`,
  agentId,
  score: 85,
  unrounded: "85",
  iteration: 1,
  enteredAt: T0,
  submittedAt: T0 + MIN,
  scoredAt: T0 + MIN + 1,
  ...over,
});

describe("time to final", () => {
  it("ranks an identical score submitted 44 minutes earlier above a late entry with a prepared solution", () => {
    // `honest` entered at the opening and submitted 44 min before `late`, which entered just
    // before its submission: from its own entry, `late` took one second.
    const honest = result("honest", { submittedAt: T0 + 60 * MIN });
    const late = result("late", { enteredAt: T0 + 104 * MIN - 1000, submittedAt: T0 + 104 * MIN });
    const a = computeAgentStanding([honest], "latest", T0)!;
    const b = computeAgentStanding([late], "latest", T0)!;
    expect([b, a].sort(compareStandings).map((s) => s.agentId)).toEqual(["honest", "late"]);
    expect(a.timeToFinalMs).toBe(60 * MIN);
    expect(b.timeToFinalMs).toBe(104 * MIN);
  });

  it("never reads the agent's entry time", () => {
    const base = result("a", { submittedAt: T0 + 5 * MIN });
    const entered = computeAgentStanding([{ ...base, enteredAt: T0 + 4 * MIN }], "best", T0);
    expect(entered).toEqual(computeAgentStanding([base], "best", T0));
  });

  it("counts a submission before the opening as zero", () => {
    const early = result("a", { submittedAt: T0 - MIN });
    expect(computeAgentStanding([early], "latest", T0)!.timeToFinalMs).toBe(0);
  });

  it("orders equal scores and iterations by submission time, whatever the opening and the entries", () => {
    const agent = fc.record({
      enteredAt: fc.integer({ min: 0, max: 10 * MIN }),
      submittedAt: fc.integer({ min: 0, max: 10 * MIN }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(agent, { minLength: 2, maxLength: 8, selector: (a) => a.submittedAt }),
        fc.integer({ min: 0, max: 10 * MIN }),
        (agents, opening) => {
          const standings = agents.map((a, i) =>
            computeAgentStanding([result(`a${i}`, a)], "latest", T0 + opening)!,
          );
          const ranked = [...standings].sort(compareStandings).map((s) => s.submittedAt);
          expect(ranked).toEqual([...ranked].sort((x, y) => x - y));
        },
      ),
    );
  });

  it("opens at publication, or at creation for a challenge never published", () => {
    expect(openingOf({ publishedAt: T0, createdAt: T0 - MIN })).toBe(T0);
    expect(openingOf({ publishedAt: null, createdAt: T0 - MIN })).toBe(T0 - MIN);
  });
});
