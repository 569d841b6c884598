import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "judges", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
