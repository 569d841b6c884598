import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "scripts",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    // The files share a worker's module cache (docs/benchmarks.md, "suite").
    isolate: false,
  },
});
