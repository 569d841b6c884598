/**
 * Vitest project "e2e-contract": the API contract test alone (e2e/contract.test.ts: Schemathesis
 * against a private `npm start`, e2e/platform.ts). It is its own project because it waits more
 * than it works: two runs paced by the API's rate limit, 44 CPU-s over 146 s (docs/benchmarks.md,
 * "suite"). `npm test` runs it beside the unit tests, whose waits left the cores idle a sixth
 * of the time (1.68 of 2 busy), instead of holding the static checks' phase open
 * (scripts/test.ts).
 */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "e2e-contract",
    include: ["contract.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 1,
    // In a plain `vitest run` (npm run test:unit), with the e2e project, after the others.
    sequence: { groupOrder: 1 },
  },
});
