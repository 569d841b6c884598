/**
 * Vitest project "e2e": against a private `npm start` each (e2e/platform.ts), the public
 * pages in Debian's Chromium (playwright-core) and the API contract (Schemathesis). Slow by
 * nature (each publishes a challenge and scores real submissions), so its timeouts are
 * minutes; one file at a time, so two platforms never share the machine's cores.
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
  },
});
