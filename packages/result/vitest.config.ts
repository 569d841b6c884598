import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "result", include: ["test/**/*.test.ts"] },
});
