import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "runner",
    include: ["test/**/*.test.ts"],
    // The fairness tests between concurrent runs run alone: vitest.contention.config.ts.
    exclude: ["test/contention/**", "**/node_modules/**"],
  },
});
