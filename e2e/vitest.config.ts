/**
 * Vitest project "e2e": against a private `npm start` each (e2e/platform.ts), the public
 * pages in Debian's Chromium (playwright-core) and the unattended platform (the API contract
 * test, which also starts one, is the "e2e-contract" project: vitest.contract.config.ts). Slow by
 * nature (each publishes a challenge and scores real submissions), so its timeouts are
 * minutes. Two files at a time, each platform with its own ports, state and runner uids: a
 * file spends most of its time waiting (crons, scoring, a runner's restart), and one at a time
 * left the cores idle while the static checks beside it waited for them. `npm test` runs it as
 * its own step beside the static checks (scripts/test.ts), never beside the runner's tests.
 */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "e2e",
    include: ["**/*.test.ts"],
    // The contract test is its own project (vitest.contract.config.ts).
    exclude: ["contract.test.ts", "**/node_modules/**"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    // What `npm test` passes for this step too (E2E_MAX_WORKERS in scripts/test.ts).
    maxWorkers: 2,
    // A browser call beside the static checks can take seconds: expect.poll's default second
    // failed a page that was there ("didn't resolve in time"); each poll may still set its own.
    expect: { poll: { timeout: 15_000 } },
    // In a plain `vitest run` (npm run test:unit), after every other project: a whole platform
    // plus a browser or Schemathesis would take the cores that the runner's timing-sensitive
    // containment tests need (a fork bomb must not starve a concurrent run).
    sequence: { groupOrder: 1 },
  },
});
