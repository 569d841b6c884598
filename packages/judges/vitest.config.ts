import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "judges", include: ["test/**/*.test.ts"] },
});
