import { describe, expect, it } from "vitest";
import { Exact, parseFraction } from "../src/index.ts";

describe("exact arithmetic", () => {
  it("reads numbers as written in decimal", () => {
    expect(Exact.fromNumber(0.1)!.toFraction()).toBe("1/10");
    expect(Exact.fromNumber(74.5)!.toText()).toBe("74.5");
    expect(Exact.fromNumber(1e-7)!.toFraction()).toBe("1/10000000");
    expect(Exact.fromNumber(Number.NaN)).toBeNull();
    expect(Exact.fromNumber(Infinity)).toBeNull();
  });
  it("adds the engineering spec's contributions to exactly 82.075", () => {
    const parts = [31.5, 10.5, 14.4, 11.175, 9.5, 5].map((n) => Exact.fromNumber(n)!);
    expect(Exact.sum(parts).toText()).toBe("82.075");
    expect(74.5 * 0.15).not.toBe(11.175); // why we do not use doubles
    expect(Exact.fromNumber(74.5)!.mul(Exact.of(15, 100)).toText()).toBe("11.175");
  });
  it("rounds half up", () => {
    expect(Exact.of(165, 2).roundHalfUp()).toBe(83n);
    expect(Exact.of(3283, 40).roundHalfUp()).toBe(82n);
    expect(Exact.of(1649999, 20000).roundHalfUp()).toBe(82n);
    expect(Exact.of(0).roundHalfUp()).toBe(0n);
  });
  it("marks non-terminating decimals", () => {
    expect(Exact.of(200, 3).toText()).toBe("66.666667…");
    expect(Exact.of(200, 3).isTerminating()).toBe(false);
    expect(Exact.of(1, 8).isTerminating()).toBe(true);
  });
  it("round-trips fractions and rejects garbage", () => {
    expect(parseFraction("3283/40")!.toText()).toBe("82.075");
    expect(parseFraction("-1")!.toText()).toBe("-1");
    expect(parseFraction("1/0")).toBeNull();
    expect(parseFraction("abc")).toBeNull();
  });
});
