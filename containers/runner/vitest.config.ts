import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "runner", include: ["test/**/*.test.ts", "src/**/*.test.ts"] },
});
