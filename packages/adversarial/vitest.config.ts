import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "adversarial", include: ["test/**/*.test.ts"] },
});
