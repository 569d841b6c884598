import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "telemetry", include: ["test/**/*.test.ts"] },
});
