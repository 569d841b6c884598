/** Vitest project "client": the typed client, and the drift of its generated types. */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "client",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    // The files share a worker's module cache (docs/benchmarks.md, "suite").
    isolate: false,
  },
});
