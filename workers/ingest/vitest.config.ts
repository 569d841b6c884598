/**
 * Vitest project "ingest": the routes run in workerd through the Cloudflare plugin, against
 * the root wrangler.toml (the one platform Worker), with the D1 migrations applied in a setup
 * file. The runner's challenge QA is reached over RUNNER_URL; here that URL is served by a
 * Node-side fake runner (test/fake-runner.ts) that answers with the documented QA report.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { FAKE_RUNNER_URL, handleFakeRunner } from "./test/fake-runner.ts";

const root = path.join(import.meta.dirname, "../..");
const migrations = await readD1Migrations(path.join(root, "migrations"));

export default defineProject({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: {
        bindings: { TEST_MIGRATIONS: migrations, RUNNER_URL: FAKE_RUNNER_URL },
        outboundService: handleFakeRunner,
      },
    }),
  ],
  test: {
    name: "ingest",
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/apply-migrations.ts"],
  },
});
