import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "runner-auth",
    // The files share a worker's module cache (docs/benchmarks.md, "suite").
    isolate: false,
    include: ["test/**/*.test.ts"],
    // npm test runs these beside lint, the type check and e2e on two cores: a CPU-bound
    // test gets seconds of margin, not vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
