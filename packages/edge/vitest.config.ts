import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "edge", include: ["test/**/*.test.ts"] },
});
