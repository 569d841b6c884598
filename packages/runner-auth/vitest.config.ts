import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "runner-auth", include: ["test/**/*.test.ts"] },
});
