import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "ranking", include: ["test/**/*.test.ts"] },
});
