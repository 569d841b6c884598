/**
 * The run budget's derivation and the fail-fast (K consecutive faults) rule: pure functions,
 * no sandbox.
 */
import { describe, expect, it } from "vitest";
import {
  computeRunBudget,
  FAIL_FAST_CONSECUTIVE,
  FailFastRule,
  RUN_BUDGET_FLOOR_MS,
  resolveRunBudget,
  resolveScanDeadline,
} from "../src/run/budget.ts";

const derived = { tests: 30, testTimeoutMs: 10_000, scanDeadlineMs: 30_000 };

describe("run budget", () => {
  it("allows the scan, one start-up and a quarter of each test's limit", () => {
    expect(computeRunBudget(derived)).toBe(30_000 + 10_000 + 30 * 2_500);
  });
  it("never derives less than the floor", () => {
    expect(computeRunBudget({ tests: 1, testTimeoutMs: 1000, scanDeadlineMs: 1000 })).toBe(
      RUN_BUDGET_FLOOR_MS,
    );
  });
  it("keeps a derived budget under the platform ceiling", () => {
    expect(
      resolveRunBudget({
        ceilingMs: 60_000,
        requestedMs: undefined,
        challengeMs: undefined,
        derived,
      }),
    ).toEqual({ limitMs: 60_000, source: "derived" });
  });
  it("lets the challenge set its own budget within the ceiling", () => {
    expect(
      resolveRunBudget({
        ceilingMs: 300_000,
        requestedMs: undefined,
        challengeMs: 45_000,
        derived,
      }),
    ).toEqual({ limitMs: 45_000, source: "challenge" });
    expect(
      resolveRunBudget({ ceilingMs: 40_000, requestedMs: undefined, challengeMs: 45_000, derived }),
    ).toEqual({ limitMs: 40_000, source: "challenge" });
  });
  it("prefers the request's budget over the challenge's", () => {
    expect(
      resolveRunBudget({ ceilingMs: 300_000, requestedMs: 20_000, challengeMs: 45_000, derived }),
    ).toEqual({ limitMs: 20_000, source: "request" });
  });
  it("gives the scan at most half the budget", () => {
    expect(resolveScanDeadline(30_000, 300_000)).toBe(30_000);
    expect(resolveScanDeadline(30_000, 20_000)).toBe(10_000);
  });
});

describe("fail-fast rule", () => {
  it("trips after K consecutive faulted tests and cites them", () => {
    const rule = new FailFastRule();
    for (let i = 1; i < FAIL_FAST_CONSECUTIVE; i++)
      expect(rule.record(`t${i}`, "timeout")).toBeNull();
    const trip = rule.record("tk", "crashed: out of memory");
    expect(trip?.consecutive).toBe(FAIL_FAST_CONSECUTIVE);
    expect(trip?.reason).toContain("tk: crashed: out of memory");
    expect(trip?.reason).toContain("t1: timeout");
    expect(rule.tripped).toBe(trip);
  });
  it("resets the count on a test without a fault", () => {
    const rule = new FailFastRule(3);
    rule.record("a", "timeout");
    rule.record("b", "timeout");
    rule.record("c", null);
    rule.record("d", "timeout");
    expect(rule.record("e", "timeout")).toBeNull();
    expect(rule.tripped).toBeNull();
    expect(rule.record("f", "timeout")).not.toBeNull();
  });
  it("stays tripped and counts the faulted tests after the trip", () => {
    const rule = new FailFastRule(1);
    const trip = rule.record("a", "crashed");
    expect(rule.record("b", null)).toBeNull();
    rule.record("c", "not run");
    rule.record("d", "not run");
    expect(rule.tripped).toBe(trip);
    expect(rule.failedAfterTrip).toBe(2);
  });
  it("keeps K small", () => {
    expect(FAIL_FAST_CONSECUTIVE).toBeGreaterThanOrEqual(2);
    expect(FAIL_FAST_CONSECUTIVE).toBeLessThanOrEqual(5);
  });
});
