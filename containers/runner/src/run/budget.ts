/**
 * @module runner/run/budget
 * Runner time is a budget. A run's wall budget covers its scan and its tests: set by the request
 * or the challenge, or else derived from the number of tests and their limit, and never above
 * the platform's ceiling (RUNNER_RUN_WALL_MS). The scan has its own deadline inside it. The
 * fail-fast rule stops a run whose subject is broken: after FAIL_FAST_CONSECUTIVE tests in a row
 * during which the subject faulted, the tests left fail at once instead of each waiting for its
 * own limit. Pure: no I/O, no clock.
 */
import type { RunBudget } from "@bouts/contracts";

/** K: tests in a row with a subject fault (crash, timeout, resource limit) before fail-fast. */
export const FAIL_FAST_CONSECUTIVE = 3;
/** A derived budget allows each test this fraction of its limit, on average. */
export const BUDGET_SHARE_OF_TEST_LIMIT = 1 / 4;
/** No derived budget is shorter than this (a one-test challenge still gets its scan and start). */
export const RUN_BUDGET_FLOOR_MS = 30_000;

export interface RunBudgetInput {
  /** Tests the run will execute (static, adversarial and generated). */
  tests: number;
  /** The per-test limit of the run. */
  testTimeoutMs: number;
  /** The scan's deadline (RUNNER_SCAN_DEADLINE_MS). */
  scanDeadlineMs: number;
}

/**
 * The derived budget: the scan's deadline, one test limit to start the subject, and a quarter
 * of the test limit per test, at least RUN_BUDGET_FLOOR_MS. The ceiling is applied by the caller.
 * @example computeRunBudget({ tests: 30, testTimeoutMs: 10_000, scanDeadlineMs: 30_000 }) // 115_000
 */
export function computeRunBudget(input: RunBudgetInput): number {
  const perTest = Math.ceil(input.testTimeoutMs * BUDGET_SHARE_OF_TEST_LIMIT);
  const derived = input.scanDeadlineMs + input.testTimeoutMs + input.tests * perTest;
  return Math.max(RUN_BUDGET_FLOOR_MS, derived);
}

/**
 * Picks a run's budget: the request's value, else the challenge's, else the derived one; all
 * of them at most `ceilingMs` (the platform's RUNNER_RUN_WALL_MS, lowered by the request).
 */
export function resolveRunBudget(opts: {
  ceilingMs: number;
  requestedMs: number | undefined;
  challengeMs: number | undefined;
  derived: RunBudgetInput;
}): { limitMs: number; source: RunBudget["source"] } {
  if (opts.requestedMs !== undefined)
    return { limitMs: Math.min(opts.ceilingMs, opts.requestedMs), source: "request" };
  if (opts.challengeMs !== undefined)
    return { limitMs: Math.min(opts.ceilingMs, opts.challengeMs), source: "challenge" };
  return {
    limitMs: Math.min(opts.ceilingMs, computeRunBudget(opts.derived)),
    source: "derived",
  };
}

/** The scan's deadline: the configured one, but never more than half the run's budget. */
export function resolveScanDeadline(configuredMs: number, runWallMs: number): number {
  return Math.max(1, Math.min(configuredMs, Math.floor(runWallMs / 2)));
}

/** Why the fail-fast rule stopped the run, once it has. */
export interface FailFastTrip {
  consecutive: number;
  reason: string;
  /** The test whose fault tripped the rule. */
  testId: string;
}

/**
 * The K-consecutive rule. Each finished test is recorded with the subject fault seen during it,
 * or null; K faults in a row trip the rule, any test without a fault resets the count. Once
 * tripped it stays tripped.
 */
export class FailFastRule {
  readonly #k: number;
  #streak: { id: string; fault: string }[] = [];
  #tripped: FailFastTrip | null = null;
  #failedAfterTrip = 0;

  constructor(k: number = FAIL_FAST_CONSECUTIVE) {
    this.#k = Math.max(1, k);
  }

  get tripped(): FailFastTrip | null {
    return this.#tripped;
  }

  /** Tests recorded with a fault after the rule tripped (they failed without waiting). */
  get failedAfterTrip(): number {
    return this.#failedAfterTrip;
  }

  /** Records one finished test; returns the trip when this test tripped the rule. */
  record(id: string, fault: string | null): FailFastTrip | null {
    if (this.#tripped) {
      if (fault !== null) this.#failedAfterTrip += 1;
      return null;
    }
    if (fault === null) {
      this.#streak = [];
      return null;
    }
    this.#streak.push({ id, fault });
    if (this.#streak.length < this.#k) return null;
    const cited = this.#streak.map((s) => `${s.id}: ${s.fault.slice(0, 120)}`).join("; ");
    this.#tripped = {
      testId: id,
      consecutive: this.#k,
      reason: `the subject faulted on ${this.#k} consecutive tests (${cited})`.slice(0, 500),
    };
    return this.#tripped;
  }
}
