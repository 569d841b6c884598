import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "runner-auth", include: ["src/**/*.test.ts"] },
});
