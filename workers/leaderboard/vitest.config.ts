/**
 * Vitest project "leaderboard": the public API and the ChallengeLeaderboard Durable Object in
 * workerd through the Cloudflare plugin. The root wrangler.toml supplies the other bindings
 * (D1, the rate limiter); this project sets its own entry (test/entry.ts: the leaderboard app
 * and the object class) and declares the object's binding itself, so it runs before the root
 * config and the platform Worker are wired for it.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";

const root = path.join(import.meta.dirname, "../..");
const migrations = await readD1Migrations(path.join(root, "migrations"));

export default defineProject({
  plugins: [
    cloudflareTest({
      main: path.join(import.meta.dirname, "test/entry.ts"),
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: {
        bindings: { TEST_MIGRATIONS: migrations },
        durableObjects: { LEADERBOARD: { className: "ChallengeLeaderboard", useSQLite: true } },
      },
    }),
  ],
  test: {
    name: "leaderboard",
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/apply-migrations.ts"],
  },
});
