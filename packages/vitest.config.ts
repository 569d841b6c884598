/**
 * Vitest project "packages": the tests of every Node package (each `packages/<name>/test/`),
 * one project for all of them. Each vitest project is its own Vite server with its own
 * transform cache, and a worker runs one project's files only, so fifteen projects of a few
 * files each paid fifteen times for the start-up and for transforming the modules they share
 * (zod, @bouts/contracts, @bouts/scoring): 34–48 CPU-s for the 90 files as fifteen projects,
 * 27–29 as one (docs/benchmarks.md, "suite"). `@bouts/db` runs its queries in workerd through
 * the Cloudflare plugin and keeps a project of its own (packages/db/vitest.config.ts).
 * Run one package's tests with its folder: `npx vitest run packages/scoring`.
 */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "packages",
    include: ["*/test/**/*.test.ts"],
    exclude: ["db/**", "**/node_modules/**"],
    // npm test runs these beside the contract test and the other projects on two cores: a
    // CPU-bound test gets seconds of margin, not vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker's files share one module cache: module state and process.env carry from file to
    // file, across packages too (docs/design.md, "Where tests live").
    isolate: false,
  },
});
