import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "scoring", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
