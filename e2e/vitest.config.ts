/**
 * Vitest project "e2e": against a private `npm start` each (e2e/platform.ts), the public
 * pages in Debian's Chromium (playwright-core) and the API contract (Schemathesis). Slow by
 * nature (each publishes a challenge and scores real submissions), so its timeouts are
 * minutes; one file at a time, and only after the other projects, so nothing else shares the
 * machine's cores with a platform.
 */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "e2e",
    include: ["**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false,
    // After every other project: a whole platform plus a browser or Schemathesis would take
    // the cores that the runner's timing-sensitive containment tests need (a fork bomb must
    // not starve a concurrent run, and it is measured against deadlines).
    sequence: { groupOrder: 1 },
  },
});
