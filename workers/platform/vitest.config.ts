/**
 * Vitest project "platform": the composed Worker's entry (fetch, queue dispatch, schedule)
 * in workerd through the Cloudflare plugin, against the root wrangler.toml, with the D1
 * migrations applied in a setup file.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";

const root = path.join(import.meta.dirname, "../..");
const migrations = await readD1Migrations(path.join(root, "migrations"));

export default defineProject({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: { bindings: { TEST_MIGRATIONS: migrations } },
    }),
  ],
  test: {
    name: "platform",
    // npm test runs these beside lint, the type check and e2e on two cores: a CPU-bound
    // test gets seconds of margin, not vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/apply-migrations.ts"],
    // One workerd for the files a vitest worker runs, not one per file (test/apply-migrations.ts
    // empties storage before each file).
    isolate: false,
  },
});
