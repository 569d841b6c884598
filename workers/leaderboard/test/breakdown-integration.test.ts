/**
 * The breakdown route and the operator rebuild, against the score worker's `scores` table
 * (migrations/0002_scores.sql), filled here the way the score worker writes it.
 */
import { env, exports } from "cloudflare:workers";
import { computeScore, SEED_ENGINEERING_EXAMPLE } from "@bouts/scoring";
import { describe, expect, it } from "vitest";
import { T0, expectProblem, scoredSubmission, seedChallenge, seedSubmission } from "./helpers.ts";

const ORIGIN = "https://leaderboard.test";

function call(path: string, token?: string, method = "GET") {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { method, headers }));
}

type BreakdownAnswer = {
  view: string;
  agentId: string;
  final: { unrounded: string; rounded: number };
  breakdown: {
    components: {
      key: string;
      weight: number;
      contribution: { text: string };
      details: Record<string, unknown>;
    }[];
    weightedSum: { text: string };
  };
};

describe("breakdown", () => {
  it("shows everyone every number, and the owner the private details too", async () => {
    const { challengeId, agents } = await seedChallenge({ agents: 2 });
    const [owner, other] = agents as [{ id: string; token: string }, { id: string; token: string }];
    const submissionId = await scoredSubmission(challengeId, owner.id, 1);

    const publicRes = await call(`/v1/submissions/${submissionId}/breakdown`);
    expect(publicRes.status).toBe(200);
    const pub = await publicRes.json<BreakdownAnswer>();
    expect(pub).toMatchObject({
      view: "public",
      agentId: owner.id,
      final: { unrounded: "82.075", rounded: 82 },
    });
    // Anyone can re-compute: Σ contributions = the weighted sum, with every weight shown.
    expect(pub.breakdown.components.map((c) => c.weight)).toEqual([35, 15, 20, 15, 10, 5]);
    expect(pub.breakdown.weightedSum.text).toBe("82.075");
    const security = pub.breakdown.components.find((c) => c.key === "security")!;
    expect(security.details.findings).toEqual([
      { cwe: "CWE-338", severity: "medium", deduction: 5 },
    ]);
    expect(JSON.stringify(pub)).not.toContain("src/session.ts");

    const mine = await (
      await call(`/v1/submissions/${submissionId}/breakdown`, owner.token)
    ).json<BreakdownAnswer>();
    expect(mine.view).toBe("owner");
    expect(JSON.stringify(mine)).toContain("src/session.ts");
    expect(mine.breakdown.components.map((c) => c.contribution.text)).toEqual(
      pub.breakdown.components.map((c) => c.contribution.text),
    );

    const theirs = await (
      await call(`/v1/submissions/${submissionId}/breakdown`, other.token)
    ).json<BreakdownAnswer>();
    expect(theirs.view).toBe("public");
    await expectProblem(await call(`/v1/submissions/${submissionId}/breakdown`, "nonsense"), 401);
  });

  it("answers 404 for an unknown or unscored submission", async () => {
    const { challengeId, agents } = await seedChallenge({ agents: 1 });
    const unscored = await seedSubmission(challengeId, agents[0]!.id, 1);
    await expectProblem(await call(`/v1/submissions/${unscored}/breakdown`), 404);
    await expectProblem(await call(`/v1/submissions/${crypto.randomUUID()}/breakdown`), 404);
  });
});

describe("rebuild from D1", () => {
  it("replaces the board with the stored scores (operators only)", async () => {
    const { challengeId, agents, operatorToken } = await seedChallenge({ agents: 2 });
    const [a, b] = agents as [{ id: string; token: string }, { id: string; token: string }];
    await scoredSubmission(challengeId, a.id, 1, 60);
    await scoredSubmission(challengeId, a.id, 2, 90);
    await scoredSubmission(challengeId, b.id, 1, 75);
    const board = env.LEADERBOARD.getByName(challengeId);

    const path = `/v1/challenges/${challengeId}/leaderboard/rebuild`;
    await expectProblem(await call(path, undefined, "POST"), 401);
    await expectProblem(await call(path, a.token, "POST"), 403);
    const res = await call(path, operatorToken, "POST");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ challengeId, agents: 2, results: 3 });
    const page = await board.getPage({ limit: 10 });
    expect(page.ok && page.value.entries.map((e) => [e.agentId, e.score, e.iterations])).toEqual([
      [a.id, 90, 2],
      [b.id, 75, 1],
    ]);
    expect(await board.getStanding(a.id)).toMatchObject({
      timeToFinalMs: 120_000,
      trajectoryClass: "improving",
    });
  });

  it("keeps each entry's cost: the stored usage rides along", async () => {
    const { challengeId, agents, operatorToken } = await seedChallenge({ agents: 2 });
    const [a, b] = agents as [{ id: string; token: string }, { id: string; token: string }];
    const spent = await scoredSubmission(challengeId, a.id, 1, 80);
    await scoredSubmission(challengeId, b.id, 1, 70);
    const usage = {
      tokens: {
        models: [{ model: "m", tokensIn: 1_000_000, tokensOut: 0, events: 1 }],
        tokensIn: 1_000_000,
        tokensOut: 0,
        events: 1,
      },
      wallMs: 5000,
    };
    await env.DB.prepare("UPDATE scores SET usage = ? WHERE submission_id = ?")
      .bind(JSON.stringify(usage), spent)
      .run();
    const res = await call(
      `/v1/challenges/${challengeId}/leaderboard/rebuild`,
      operatorToken,
      "POST",
    );
    expect(res.status).toBe(200);
    const prices = {
      revision: 1,
      asOf: "2026-12-01",
      setAt: new Date(T0).toISOString(),
      models: { m: { inputUsdPerMTok: "2.5", outputUsdPerMTok: "10" } },
    };
    const page = await env.LEADERBOARD.getByName(challengeId).getPage({ limit: 10, prices });
    expect(
      page.ok && page.value.entries.map((e) => [e.agentId, e.cost.status, e.cost.usd]),
    ).toEqual([
      [a.id, "priced", "2.5"],
      [b.id, "not-measured", null],
    ]);
  });

  it("reads a stored breakdown that does not parse the one way every reader does", async () => {
    // parseStoredBreakdown's rule: unreadable as a whole. The breakdown answers 503; the rebuild
    // ranks the score without its extras, as one stored before intervals (it used to 500 on
    // text that is not JSON, and to take the interval out of JSON that is not a breakdown).
    const { challengeId, agents, operatorToken } = await seedChallenge({ agents: 3 });
    const [good, notJson, notBreakdown] = agents as { id: string }[];
    const scored = computeScore(SEED_ENGINEERING_EXAMPLE, { interval: { seed: "submission:x" } });
    if (!scored.ok) throw new Error("the example does not score");
    const interval = scored.value.interval!;
    const ids = [
      await scoredSubmission(challengeId, good!.id, 1, 80),
      await scoredSubmission(challengeId, notJson!.id, 1, 70),
      await scoredSubmission(challengeId, notBreakdown!.id, 1, 60),
    ];
    const texts = [
      JSON.stringify(scored.value),
      '{"schema":"bouts.breakdown/v1",',
      JSON.stringify({ interval }),
    ];
    for (const [i, id] of ids.entries())
      await env.DB.prepare("UPDATE scores SET breakdown = ? WHERE submission_id = ?")
        .bind(texts[i], id)
        .run();

    expect((await call(`/v1/submissions/${ids[0]}/breakdown`)).status).toBe(200);
    await expectProblem(await call(`/v1/submissions/${ids[1]}/breakdown`), 503);
    await expectProblem(await call(`/v1/submissions/${ids[2]}/breakdown`), 503);

    const res = await call(
      `/v1/challenges/${challengeId}/leaderboard/rebuild`,
      operatorToken,
      "POST",
    );
    expect(res.status).toBe(200);
    const page = await env.LEADERBOARD.getByName(challengeId).getPage({ limit: 10 });
    // A score without an interval counts as a point, at its unrounded score.
    const point = {
      low: scored.value.final.unrounded.value,
      high: scored.value.final.unrounded.value,
    };
    expect(page.ok && page.value.entries.map((e) => [e.agentId, e.interval])).toEqual([
      [good!.id, { low: interval.low.value, high: interval.high.value }],
      [notJson!.id, point],
      [notBreakdown!.id, point],
    ]);
  });
});
