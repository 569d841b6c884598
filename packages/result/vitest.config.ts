import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "result", include: ["src/**/*.test.ts"] },
});
