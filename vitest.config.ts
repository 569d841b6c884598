import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Each workspace owns its vitest config (Node projects, and workerd projects through the
// Cloudflare plugin); the root only lists them. CI asks for a JSON report to count totals.
// One worker more than the cores: most files wait on sandboxed processes, workerd or a
// platform, and vitest's default (cores - 1) ran every file of a 2-core machine in turn.
const json = process.env.VITEST_JSON;

export default defineConfig({
  test: {
    maxWorkers: availableParallelism() + 1,
    projects: [
      "packages/*/vitest.config.ts",
      "containers/*/vitest.config.ts",
      "containers/runner/vitest.contention.config.ts",
      "workers/*/vitest.config.ts",
      "scripts/vitest.config.ts",
      "e2e/vitest.config.ts",
    ],
    reporters: json ? ["default", ["json", { outputFile: json }]] : ["default"],
  },
});
