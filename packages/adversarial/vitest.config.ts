import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "adversarial", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
