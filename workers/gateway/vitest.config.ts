/**
 * Vitest project "gateway-worker": the metering gateway in workerd through the Cloudflare plugin,
 * against the root wrangler.toml and the platform entry, with the D1 migrations applied in a setup
 * file. Its upstream is the local fake model of @bouts/fixtures, a real HTTP server started here on
 * loopback (FAKE_MODEL_URL lets a test read what it received); the call deadline is short, so a
 * hanging upstream is a quick test.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { startFakeModel } from "@bouts/fixtures";

const root = path.join(import.meta.dirname, "../..");
const migrations = await readD1Migrations(path.join(root, "migrations"));
const model = await startFakeModel({ unref: true });

export default defineProject({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          FAKE_MODEL_URL: model.url,
          GATEWAY_UPSTREAM_URL: model.url,
          GATEWAY_UPSTREAM_KEY: "sk-upstream-test-key",
          GATEWAY_TIMEOUT_MS: "1500",
        },
      },
    }),
  ],
  test: {
    name: "gateway-worker",
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
