/**
 * The operator's price table write, `PUT /v1/pricing`, through the platform Worker: operators
 * only, a new revision each time (read back by anyone through the leaderboard's
 * `GET /v1/pricing`), every hostile body a 400 problem, and revisions append-only in D1. What a
 * price does on the board is the leaderboard's test (workers/leaderboard/test/cost-integration).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, callJson, createAgent, expectProblem, seedOperator } from "./helpers.ts";

const PRICES = {
  asOf: "2026-12-01",
  models: {
    big: { inputUsdPerMTok: "3", outputUsdPerMTok: "15" },
    small: { inputUsdPerMTok: "0.15", outputUsdPerMTok: "0.6" },
  },
};

async function setPrices(token: string, body: unknown = PRICES) {
  const res = await callJson("/v1/pricing", "PUT", body, token);
  expect(res.status).toBe(201);
  return res.json<{ revision: number }>();
}

describe("the price table", () => {
  it("is set by operators only, as a new revision each time, and read by anyone", async () => {
    const operator = await seedOperator();
    const agent = await createAgent(operator.token);
    const agentPut = await callJson("/v1/pricing", "PUT", PRICES, agent.token);
    expect([401, 403]).toContain(agentPut.status);
    expect((await callJson("/v1/pricing", "PUT", PRICES)).status).toBe(401);
    const first = await setPrices(operator.token);
    const second = await setPrices(operator.token, { ...PRICES, asOf: "2026-12-02" });
    expect(second.revision).toBe(first.revision + 1);
    const read = await call("/v1/pricing");
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ revision: second.revision, asOf: "2026-12-02" });
  });

  it.each([
    [
      "a price in exponent form",
      { ...PRICES, models: { m: { inputUsdPerMTok: "1e-3", outputUsdPerMTok: "1" } } },
    ],
    [
      "a negative price",
      { ...PRICES, models: { m: { inputUsdPerMTok: "-1", outputUsdPerMTok: "1" } } },
    ],
    [
      "a price as a number",
      { ...PRICES, models: { m: { inputUsdPerMTok: 3, outputUsdPerMTok: "1" } } },
    ],
    [
      "seven decimals",
      { ...PRICES, models: { m: { inputUsdPerMTok: "0.0000001", outputUsdPerMTok: "1" } } },
    ],
    ["a missing output price", { ...PRICES, models: { m: { inputUsdPerMTok: "1" } } }],
    ["an as-of that is not a date", { ...PRICES, asOf: "yesterday" }],
    ["an unknown field", { ...PRICES, currency: "EUR" }],
  ])("refuses %s with a 400 problem", async (_name, body) => {
    const operator = await seedOperator();
    const res = await callJson("/v1/pricing", "PUT", body, operator.token);
    const problem = await expectProblem(res, 400);
    expect(problem.detail).toMatch(/asOf|models|currency|Unrecognized/);
  });

  it("stores revisions append-only: the database refuses to change one", async () => {
    const operator = await seedOperator();
    const { revision } = await setPrices(operator.token);
    await expect(
      env.DB.prepare("UPDATE price_tables SET as_of = '1999-01-01' WHERE revision = ?")
        .bind(revision)
        .run(),
    ).rejects.toThrow(/append-only/);
    await expect(
      env.DB.prepare("DELETE FROM price_tables WHERE revision = ?").bind(revision).run(),
    ).rejects.toThrow(/append-only/);
  });
});
