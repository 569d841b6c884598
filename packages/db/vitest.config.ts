/**
 * Vitest project "db": the query functions run in workerd through the Cloudflare plugin,
 * against a local (Miniflare) D1 with the repository's migrations applied in a setup file. No
 * Worker entry and no wrangler config: the one binding the package needs, `DB`, is declared
 * inline.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";

const migrations = await readD1Migrations(path.join(import.meta.dirname, "../../migrations"));

export default defineProject({
  plugins: [
    cloudflareTest({
      miniflare: {
        // The root wrangler.toml's date, so the tests run on the runtime production runs.
        compatibilityDate: "2026-11-01",
        d1Databases: ["DB"],
        bindings: { TEST_MIGRATIONS: migrations },
      },
    }),
  ],
  test: {
    name: "db",
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
