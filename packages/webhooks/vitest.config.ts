import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "webhooks", include: ["test/**/*.test.ts"] },
});
