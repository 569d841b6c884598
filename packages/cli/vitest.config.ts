/**
 * Vitest project "cli": the bouts command's packing, configuration, parsing and rendering, and
 * its commands against the real platform Worker (wrangler's test harness, test/platform.ts).
 */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "cli",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    // The files share a worker's module cache (docs/benchmarks.md, "suite").
    isolate: false,
  },
});
