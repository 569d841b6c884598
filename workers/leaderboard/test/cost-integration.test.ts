/**
 * Cost on the board, end to end: every entry's cost with its math, `sort=cost` and `maxCostUsd`
 * with their cursors and 400s, and the score-against-cost plot with its Pareto frontier (a
 * rebuild keeping costs is in breakdown-integration.test.ts). Hostile cases: silent telemetry and
 * unpriced models never look cheap. The price table is set through the platform Worker: its
 * write, `PUT /v1/pricing`, is the ingest role's (tested in workers/ingest/test/pricing-integration).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "@bouts/edge";
import type { RunUsage } from "@bouts/contracts";
import { createLeaderboardRoutes, type LeaderboardEnv } from "../src/index.ts";
import { expectProblem, result, scoredSubmission, seedChallenge } from "./helpers.ts";

const ORIGIN = "https://leaderboard.test";
const app = createApp<LeaderboardEnv>().route(
  "/",
  createLeaderboardRoutes({ cache: { versionTtlSeconds: 0 } }),
);

async function call(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${ORIGIN}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const usage = (model: string | null, tokensIn: number, tokensOut: number): RunUsage => ({
  tokens: { models: [{ model, tokensIn, tokensOut, events: 1 }], tokensIn, tokensOut, events: 1 },
  wallMs: 90_000,
});

const PRICES = {
  asOf: "2026-12-01",
  models: {
    big: { inputUsdPerMTok: "3", outputUsdPerMTok: "15" },
    small: { inputUsdPerMTok: "0.15", outputUsdPerMTok: "0.6" },
  },
};

/** Sets the price table through the platform Worker (the write is the ingest role's). */
async function setPrices(token: string, body: unknown = PRICES) {
  const res = await exports.default.fetch(
    new Request(`${ORIGIN}/v1/pricing`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  expect(res.status).toBe(201);
  return res.json<{ revision: number }>();
}

type Entry = {
  rank: number;
  agentId: string;
  cost: { status: string; usd: string | null; models: { usd: string | null }[] };
};
type Page = { entries: Entry[]; next: string | null; total: number; sort: string };

/**
 * A board of five: two priced runs (big at $6.75, small at $0.0001575), one silent (no
 * tokens), one on an unpriced model, one with no trace at all.
 */
async function costBoard() {
  const seeded = await seedChallenge();
  const board = env.LEADERBOARD.getByName(seeded.challengeId);
  const rows = [
    result(seeded.challengeId, "dear", 90, { usage: usage("big", 2_000_000, 50_000) }),
    result(seeded.challengeId, "cheap", 80, { usage: usage("small", 1000, 10) }),
    result(seeded.challengeId, "silent", 85, { usage: { tokens: null, wallMs: 1000 } }),
    result(seeded.challengeId, "sneaky", 88, { usage: usage("free-lunch", 10, 10) }),
    result(seeded.challengeId, "untraced", 70),
  ];
  for (const r of rows) expect((await board.recordResult(r)).ok).toBe(true);
  return { ...seeded, board };
}

describe("cost on the board", () => {
  it("prices every entry exactly, and says why when it cannot", async () => {
    const { challengeId, operatorToken } = await costBoard();
    const { revision } = await setPrices(operatorToken);
    const page = await (
      await call(`/v1/challenges/${challengeId}/leaderboard`)
    ).json<Page & { prices: { revision: number } }>();
    expect(page.prices.revision).toBeGreaterThanOrEqual(revision);
    const byAgent = new Map(page.entries.map((e) => [e.agentId, e.cost]));
    // 2 M × $3 + 50 k × $15 per million = 6 + 0.75; 1000 × 0.15 + 10 × 0.6 per million.
    expect(byAgent.get("dear")).toMatchObject({ status: "priced", usd: "6.75" });
    expect(byAgent.get("cheap")).toMatchObject({ status: "priced", usd: "0.000156" });
    expect(byAgent.get("silent")).toMatchObject({ status: "not-measured", usd: null });
    expect(byAgent.get("sneaky")).toMatchObject({ status: "not-priced", usd: null });
    expect(byAgent.get("untraced")).toMatchObject({ status: "not-measured", usd: null });
    // The official order is untouched by cost.
    expect(page.entries.map((e) => e.agentId)).toEqual([
      "dear",
      "sneaky",
      "silent",
      "cheap",
      "untraced",
    ]);
  });

  it("sorts by cost with unknown costs last, pages it with its own cursor, keeps official ranks", async () => {
    const { challengeId, operatorToken } = await costBoard();
    await setPrices(operatorToken);
    const base = `/v1/challenges/${challengeId}/leaderboard?sort=cost`;
    const first = await (await call(`${base}&limit=2`)).json<Page>();
    expect(first.entries.map((e) => [e.agentId, e.rank])).toEqual([
      ["cheap", 4],
      ["dear", 1],
    ]);
    const rest = await (
      await call(`${base}&limit=10&cursor=${encodeURIComponent(first.next!)}`)
    ).json<Page>();
    // Silent telemetry and an unpriced model never pass for cheap: they come last.
    expect(rest.entries.map((e) => e.agentId)).toEqual(["sneaky", "silent", "untraced"]);
    // A cost cursor does not continue the official order, nor the reverse.
    await expectProblem(
      await call(
        `/v1/challenges/${challengeId}/leaderboard?cursor=${encodeURIComponent(first.next!)}`,
      ),
      400,
    );
    const rankPage = await (
      await call(`/v1/challenges/${challengeId}/leaderboard?limit=1`)
    ).json<Page>();
    await expectProblem(await call(`${base}&cursor=${encodeURIComponent(rankPage.next!)}`), 400);
  });

  it("filters by a cost ceiling, leaving out entries whose cost is unknown", async () => {
    const { challengeId, operatorToken } = await costBoard();
    await setPrices(operatorToken);
    const base = `/v1/challenges/${challengeId}/leaderboard`;
    const under = await (await call(`${base}?maxCostUsd=1`)).json<Page>();
    expect(under.entries.map((e) => e.agentId)).toEqual(["cheap"]);
    expect(under.total).toBe(1);
    const all = await (await call(`${base}?maxCostUsd=6.75`)).json<Page>();
    expect(all.entries.map((e) => e.agentId)).toEqual(["dear", "cheap"]);
    const none = await (await call(`${base}?maxCostUsd=0.000155999999`)).json<Page>();
    expect(none.entries).toEqual([]);
  });

  it.each([
    ["sort=price", "sort"],
    ["sort=", "sort"],
    ["maxCostUsd=-1", "maxCostUsd"],
    ["maxCostUsd=1e3", "maxCostUsd"],
    ["maxCostUsd=0.0000000000001", "maxCostUsd"],
    ["maxCostUsd=cheap", "maxCostUsd"],
  ])("refuses %s with a 400 problem naming %s", async (query, field) => {
    const { challengeId } = await seedChallenge();
    const res = await call(`/v1/challenges/${challengeId}/leaderboard?${query}`);
    const problem = await expectProblem(res, 400);
    expect(problem.detail).toContain(field);
  });

  it("draws score against cost with the Pareto frontier", async () => {
    const { challengeId, operatorToken, board } = await costBoard();
    // A third priced run: cheaper than dear and better than cheap, but dominated by neither.
    await board.recordResult(result(challengeId, "mid", 86, { usage: usage("small", 100_000, 0) }));
    // And one dominated: dearer than mid, scoring less.
    await board.recordResult(
      result(challengeId, "waste", 60, { usage: usage("big", 1_000_000, 0) }),
    );
    await setPrices(operatorToken);
    const res = await call(`/v1/challenges/${challengeId}/leaderboard/cost`);
    expect(res.status).toBe(200);
    const plot = await res.json<{
      points: { agentId: string; usd: string; onFrontier: boolean }[];
      frontier: string[];
      unknownCost: number;
      total: number;
    }>();
    expect(plot.frontier).toEqual(["cheap", "mid", "dear"]);
    expect(plot.total).toBe(7);
    expect(plot.unknownCost).toBe(3);
    expect(plot.points.map((p) => [p.agentId, p.usd, p.onFrontier])).toEqual([
      ["dear", "6.75", true],
      ["mid", "0.015", true],
      ["cheap", "0.000156", true],
      ["waste", "3", false],
    ]);
  });

  it("shows costs unpriced, not zero, while no price covers a model", async () => {
    const { challengeId } = await costBoard();
    const page = await (
      await call(`/v1/challenges/${challengeId}/leaderboard?sort=cost`)
    ).json<Page>();
    // Whatever revision is in force here, "free-lunch" is never priced and silence is never $0.
    const byAgent = new Map(page.entries.map((e) => [e.agentId, e.cost]));
    expect(byAgent.get("sneaky")?.status).toBe("not-priced");
    expect(byAgent.get("silent")?.usd).toBeNull();
  });
});

describe("the challenge page", () => {
  it("shows each row's cost or why it has none, and draws score against cost", async () => {
    const { challengeId, operatorToken, board } = await costBoard();
    await board.recordResult(result(challengeId, "mid", 86, { usage: usage("small", 100_000, 0) }));
    await setPrices(operatorToken);
    const res = await call(`/challenges/${challengeId}`);
    expect(res.status).toBe(200);
    const body = (await res.text()).replace(/\s+/g, " ");
    expect(body).toMatch(/<th scope="col" class="num" title="[^"]*">Cost<\/th>/);
    expect(body).toContain("$6.75");
    expect(body).toContain("exactly $0.000156");
    expect(body).toMatch(/>\s*not measured\s*</);
    expect(body).toMatch(/>\s*not priced\s*</);
    expect(body).toContain(
      'aria-label="Score against cost of 3 entries. Pareto frontier, cheapest first: cheap 80 at $0.000156; mid 86 at $0.015; dear 90 at $6.75."',
    );
    expect(body).toContain("3 priced entries drawn; 3 not measured or not priced.");
    expect(body.match(/<circle class="cost-dot/g)).toHaveLength(3);
  });
});

describe("a submission's cost", () => {
  it("is in its breakdown answer and on its page, with the math per model", async () => {
    const { challengeId, agents, operatorToken } = await seedChallenge({ agents: 1 });
    const id = await scoredSubmission(challengeId, agents[0]!.id, 3);
    const spent = {
      tokens: {
        models: [
          { model: "big", tokensIn: 10_000, tokensOut: 1000, events: 3 },
          { model: "small", tokensIn: 7, tokensOut: 0, events: 1 },
        ],
        tokensIn: 10_007,
        tokensOut: 1000,
        events: 4,
      },
      wallMs: 125_000,
    };
    await env.DB.prepare("UPDATE scores SET usage = ? WHERE submission_id = ?")
      .bind(JSON.stringify(spent), id)
      .run();
    await setPrices(operatorToken);
    const res = await call(`/v1/submissions/${id}/breakdown`);
    expect(res.status).toBe(200);
    const body = await res.json<{ cost: Record<string, unknown> }>();
    // 10 000 × 3 + 1000 × 15 = 45 000 µ$ → $0.045; 7 × 0.15 = 1.05 µ$ → $0.00000105.
    expect(body.cost).toMatchObject({
      status: "priced",
      usd: "0.04500105",
      iterations: 3,
      agentWallMs: 125_000,
      models: [
        { model: "big", usd: "0.045", inputUsdPerMTok: "3", outputUsdPerMTok: "15" },
        { model: "small", usd: "0.00000105" },
      ],
    });
    const page = (await (await call(`/submissions/${id}`)).text()).replace(/\s+/g, " ");
    expect(page).toContain("(exactly $0.04500105)");
    expect(page).toContain("10000 in × $3 + 1000 out × $15 per million tokens = $0.045");
  });

  it("says not measured for a submission without a trace", async () => {
    const { challengeId, agents } = await seedChallenge({ agents: 1 });
    const id = await scoredSubmission(challengeId, agents[0]!.id, 1);
    const body = await (
      await call(`/v1/submissions/${id}/breakdown`)
    ).json<{
      cost: { status: string; usd: unknown };
    }>();
    expect(body.cost).toMatchObject({ status: "not-measured", usd: null });
  });
});
