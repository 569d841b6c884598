/**
 * The e2e project runs files side by side, each with its own `npm start`: their runners must
 * never share a host uid (a shared uid would merge two runs' process caps and let one runner
 * kill the other's sandboxes).
 */
import { describe, expect, it } from "vitest";
import { E2E_RUNNER_UID_BASE, E2E_UIDS_PER_WORKER, runnerUidBase } from "./platform.ts";

/** What one runner may take: two uids per concurrent run, at most 64 runs (runner config). */
const MOST_UIDS_OF_ONE_RUNNER = 2 * 64;

describe("the runner uids of e2e files that run at once", () => {
  it("gives each vitest worker its own range, wide enough for a whole runner", () => {
    const bases = [1, 2, 3, 4].map((id) => runnerUidBase({ VITEST_POOL_ID: String(id) }));
    expect(bases[0]).toBe(E2E_RUNNER_UID_BASE);
    expect(new Set(bases).size).toBe(bases.length);
    for (let i = 1; i < bases.length; i++)
      expect(bases[i]! - bases[i - 1]!).toBeGreaterThanOrEqual(MOST_UIDS_OF_ONE_RUNNER);
    expect(E2E_UIDS_PER_WORKER).toBeGreaterThanOrEqual(MOST_UIDS_OF_ONE_RUNNER);
  });

  it("uses the first range outside vitest, and refuses a worker id that is not one", () => {
    expect(runnerUidBase({})).toBe(E2E_RUNNER_UID_BASE);
    for (const bad of ["0", "-1", "1.5", "x"])
      expect(() => runnerUidBase({ VITEST_POOL_ID: bad })).toThrow(/VITEST_POOL_ID/);
  });
});
