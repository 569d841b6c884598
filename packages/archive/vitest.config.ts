import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "archive", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
