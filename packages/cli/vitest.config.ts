/** Vitest project "cli": the bouts command's packing, configuration, parsing and rendering. */
import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "cli", include: ["test/**/*.test.ts"] },
});
