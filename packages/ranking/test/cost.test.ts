/**
 * Cost: exact decimal prices, exact sums in picodollars, "not priced" instead of a partial
 * sum, and the Pareto frontier (checked against a brute-force dominance test).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compilePrices,
  computeCost,
  computeParetoFrontier,
  formatUsd,
  parseUsdAmount,
  parseUsdPerMTok,
  priceTokens,
  type CostPoint,
} from "../src/cost.ts";

const prices = compilePrices({
  revision: 3,
  asOf: "2026-12-01",
  models: {
    "model-a": { inputUsdPerMTok: "3", outputUsdPerMTok: "15" },
    "model-b": { inputUsdPerMTok: "0.15", outputUsdPerMTok: "0.6" },
    free: { inputUsdPerMTok: "0", outputUsdPerMTok: "0" },
  },
});

describe("prices", () => {
  it("parses decimal USD per million tokens exactly, and refuses anything else", () => {
    expect(parseUsdPerMTok("0.15")).toBe(150_000n);
    expect(parseUsdPerMTok("15")).toBe(15_000_000n);
    expect(parseUsdPerMTok("0.000001")).toBe(1n);
    for (const bad of ["-1", "1e3", "0.0000001", "", " 3", "3.", ".5", "1234567", "NaN"])
      expect(parseUsdPerMTok(bad)).toBeNull();
    expect(parseUsdAmount("0.5")).toBe(500_000_000_000n);
    expect(parseUsdAmount("0.000000000001")).toBe(1n);
    expect(parseUsdAmount("0.0000000000001")).toBeNull();
  });

  it("prices tokens exactly: 7 tokens at $0.15/MTok are $0.00000105", () => {
    const r = priceTokens([{ model: "model-b", tokensIn: 7, tokensOut: 0 }], prices);
    expect(r).toEqual({ picoUsd: 1_050_000n, unpriced: [] });
    expect(formatUsd(r.picoUsd!)).toBe("0.00000105");
  });

  it("sums models: 2 M in + 50 k out on model-a and 1/3 M on model-b", () => {
    const r = priceTokens(
      [
        { model: "model-a", tokensIn: 2_000_000, tokensOut: 50_000 },
        { model: "model-b", tokensIn: 333_333, tokensOut: 1 },
      ],
      prices,
    );
    // 2 × 3 + 0.05 × 15 = 6.75; 0.333333 × 0.15 = 0.04999995; 1 × 0.6e-6 = 0.0000006 → 6.80000055
    expect(formatUsd(r.picoUsd!)).toBe("6.80000055");
  });

  it("prints zero and whole dollars without a fraction", () => {
    expect(formatUsd(0n)).toBe("0");
    expect(formatUsd(3_000_000_000_000n)).toBe("3");
  });

  it("a run on a free model costs zero, which is measured, not null", () => {
    expect(priceTokens([{ model: "free", tokensIn: 10, tokensOut: 10 }], prices).picoUsd).toBe(0n);
  });

  it("is not priced when a model has no price or tokens name no model, never a partial sum", () => {
    const r = priceTokens(
      [
        { model: "model-a", tokensIn: 10, tokensOut: 0 },
        { model: "mystery", tokensIn: 10, tokensOut: 0 },
        { model: null, tokensIn: 1, tokensOut: 0 },
      ],
      prices,
    );
    expect(r).toEqual({ picoUsd: null, unpriced: ["mystery", null] });
    expect(priceTokens([{ model: "model-a", tokensIn: 1, tokensOut: 0 }], null).picoUsd).toBeNull();
  });

  it("silent telemetry is not measured", () => {
    expect(priceTokens(null, prices)).toEqual({ picoUsd: null, unpriced: [] });
  });

  it("refuses to compile a price that is not a decimal", () => {
    expect(() =>
      compilePrices({
        revision: 1,
        asOf: "2026-12-01",
        models: { m: { inputUsdPerMTok: "1e-3", outputUsdPerMTok: "1" } },
      }),
    ).toThrow(TypeError);
  });
});

describe("computeParetoFrontier", () => {
  it("keeps the cheapest best scores and drops dominated points", () => {
    const points: CostPoint[] = [
      { id: "cheap-weak", picoUsd: 1n, score: 40 },
      { id: "cheap-weaker", picoUsd: 1n, score: 30 },
      { id: "mid", picoUsd: 5n, score: 70 },
      { id: "dear-worse", picoUsd: 9n, score: 65 },
      { id: "dear-best", picoUsd: 9n, score: 85 },
      { id: "twin", picoUsd: 9n, score: 85 },
      { id: "dearer-same", picoUsd: 12n, score: 85 },
    ];
    expect(computeParetoFrontier(points)).toEqual(["cheap-weak", "mid", "dear-best", "twin"]);
    expect(computeParetoFrontier([])).toEqual([]);
  });

  it("agrees with brute-force dominance on any set of points", () => {
    const point = fc.record({
      picoUsd: fc.bigInt({ min: 0n, max: 20n }),
      score: fc.integer({ min: 0, max: 10 }),
    });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 30 }), (raw) => {
        const points = raw.map((p, i) => ({ ...p, id: `p${i}` }));
        const dominated = (p: CostPoint) =>
          points.some(
            (q) =>
              q.picoUsd <= p.picoUsd &&
              q.score >= p.score &&
              (q.picoUsd < p.picoUsd || q.score > p.score),
          );
        const expected = points.filter((p) => !dominated(p)).map((p) => p.id);
        return (
          JSON.stringify([...computeParetoFrontier(points)].sort()) ===
          JSON.stringify(expected.sort())
        );
      }),
    );
  });
});

describe("computeCost", () => {
  const usage = {
    tokens: {
      models: [
        { model: "model-a", tokensIn: 1000, tokensOut: 100 },
        { model: "mystery", tokensIn: 5, tokensOut: 0 },
      ],
      tokensIn: 1005,
      tokensOut: 100,
    },
    wallMs: 60_000,
  };

  it("shows each model's price and amount, and no total when one is not priced", () => {
    const c = computeCost(usage, 2, prices);
    expect(c.status).toBe("not-priced");
    expect(c.usd).toBeNull();
    expect(c.models[0]).toEqual({
      model: "model-a",
      tokensIn: 1000,
      tokensOut: 100,
      inputUsdPerMTok: "3",
      outputUsdPerMTok: "15",
      usd: "0.0045",
    });
    expect(c.models[1]?.usd).toBeNull();
    expect(c).toMatchObject({ agentWallMs: 60_000, iterations: 2, prices: { revision: 3 } });
  });

  it("is priced when every model is, and not measured without telemetry", () => {
    const priced = computeCost(
      { ...usage, tokens: { ...usage.tokens, models: [usage.tokens.models[0]!] } },
      1,
      prices,
    );
    expect(priced).toMatchObject({ status: "priced", usd: "0.0045" });
    expect(computeCost(null, 1, prices)).toMatchObject({
      status: "not-measured",
      usd: null,
      tokensIn: null,
      agentWallMs: null,
    });
    expect(computeCost({ tokens: null, wallMs: 5 }, 1, null)).toMatchObject({
      status: "not-measured",
      agentWallMs: 5,
      prices: null,
    });
  });
});
