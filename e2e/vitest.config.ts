/**
 * Vitest project "e2e": the public pages in Debian's Chromium (playwright-core) against a
 * private `npm start` (e2e/platform.ts). One file, run on its own fork; slow by nature (it
 * publishes a challenge and scores real submissions), so its timeouts are minutes.
 */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "e2e",
    include: ["**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
  },
});
