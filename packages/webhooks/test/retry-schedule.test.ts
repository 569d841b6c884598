import { describe, expect, it } from "vitest";
import {
  computeRetryDelay,
  MAX_ATTEMPTS,
  MAX_RETRY_DELAY_SECONDS,
  parseRetryAfter,
  RETRY_STEPS_SECONDS,
} from "../src/index.ts";

/** A seeded linear congruential generator: the same seed gives the same sequence. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const delay = (attempt: number, r: number, retryAfter?: number | null) => {
  const plan = computeRetryDelay(attempt, () => r, retryAfter);
  if (!plan.ok) throw new Error("exhausted");
  return plan.value.delaySeconds;
};

describe("computeRetryDelay", () => {
  it("follows the documented table: 5s 30s 2m 10m 30m 1h 3h 6h 12h 12h", () => {
    expect(RETRY_STEPS_SECONDS).toEqual([5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200, 43200]);
    expect(MAX_ATTEMPTS).toBe(11);
    expect(RETRY_STEPS_SECONDS.reduce((a, b) => a + b, 0) / 3600).toBeCloseTo(34.7, 1);
  });

  it("stays between half the step and the full step, in whole seconds", () => {
    for (const [i, step] of RETRY_STEPS_SECONDS.entries()) {
      const attempt = i + 1;
      expect(delay(attempt, 0)).toBe(Math.ceil(step / 2));
      expect(delay(attempt, 0.999999)).toBe(step);
      const random = seeded(attempt);
      for (let k = 0; k < 200; k++) {
        const d = delay(attempt, random());
        expect(Number.isInteger(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(step / 2);
        expect(d).toBeLessThanOrEqual(step);
        expect(d).toBeLessThanOrEqual(MAX_RETRY_DELAY_SECONDS);
      }
    }
  });

  it("is deterministic given the random source", () => {
    const run = (seed: number) => {
      const random = seeded(seed);
      return RETRY_STEPS_SECONDS.map((_, i) => computeRetryDelay(i + 1, random));
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });

  it("spreads retries of many messages (jitter is not constant)", () => {
    const random = seeded(7);
    const delays = new Set(Array.from({ length: 100 }, () => delay(6, random())));
    expect(delays.size).toBeGreaterThan(50);
  });

  it("names the next attempt and gives up after the last one", () => {
    expect(computeRetryDelay(1, () => 0.5)).toEqual({
      ok: true,
      value: { nextAttempt: 2, delaySeconds: 4 },
    });
    expect(computeRetryDelay(10, () => 0.5).ok).toBe(true);
    expect(computeRetryDelay(11, () => 0.5)).toEqual({
      ok: false,
      error: { reason: "exhausted", attempts: 11 },
    });
  });

  it("waits at least Retry-After, capped at 12 hours", () => {
    expect(delay(1, 0, 120)).toBe(120);
    expect(delay(7, 0, 60)).toBe(5400); // the schedule is already later than Retry-After
    expect(delay(1, 0, 100_000)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(delay(1, 0, 0)).toBe(3);
    expect(delay(1, 0, null)).toBe(3);
  });

  it("refuses programmer errors loudly", () => {
    expect(() => computeRetryDelay(0, () => 0)).toThrow(RangeError);
    expect(() => computeRetryDelay(1.5, () => 0)).toThrow(RangeError);
    expect(() => computeRetryDelay(1, () => 1)).toThrow(RangeError);
    expect(() => computeRetryDelay(1, () => Number.NaN)).toThrow(RangeError);
  });
});

describe("parseRetryAfter", () => {
  const now = new Date("2026-03-01T12:00:00Z");

  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Sun, 01 Mar 2026 12:05:00 GMT", now)).toBe(300);
    expect(parseRetryAfter("Sun, 01 Mar 2026 11:00:00 GMT", now)).toBe(0);
  });

  it("caps long waits and ignores what it cannot read", () => {
    expect(parseRetryAfter("999999", now)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(parseRetryAfter("Tue, 10 Mar 2026 12:00:00 GMT", now)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
    expect(parseRetryAfter("1.5", now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("2026-03-01 12:05", now)).toBeNull();
  });
});
