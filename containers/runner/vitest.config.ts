import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "runner",
    // npm test runs these beside lint, the type check and e2e on two cores: a CPU-bound
    // test gets seconds of margin, not vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ["test/**/*.test.ts"],
    // The fairness tests between concurrent runs run alone: vitest.contention.config.ts.
    exclude: ["test/contention/**", "**/node_modules/**"],
    // A worker's files share one module cache: each file re-imported the runner, zod and the
    // scanners, 236 CPU-s for the project against 195 (docs/benchmarks.md, "suite"). Every
    // file builds its own environment (test/helpers.ts); the one that mocks a module loads the
    // module it tests afresh (test/job-overlap.test.ts).
    isolate: false,
  },
});
