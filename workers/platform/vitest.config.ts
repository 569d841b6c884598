/**
 * Vitest project "platform": the composed Worker in workerd through the Cloudflare plugin,
 * against the root wrangler.toml and the platform entry, with the D1 migrations applied in a
 * setup file. It runs its own tests (the entry: fetch, queue dispatch, schedule) and those of the
 * two roles it mounts that need no bindings of their own: the leaderboard (public API, pages,
 * the ChallengeLeaderboard Durable Object) and the metering gateway. One project, not three:
 * each project is its own Vite server transforming the same module graph (the platform entry
 * imports every role) and its own workerd per vitest worker evaluating it; the three as one
 * took 21–26 CPU-s against 36–42 (docs/benchmarks.md, "suite"). The roles with bindings that
 * would change other files' behaviour keep their own projects: ingest (a fake runner as every
 * outbound fetch), webhooks (a scriptable receiver as every outbound fetch, its queue
 * redirected) and score (the real runner).
 *
 * The gateway's upstream is the local fake model of @bouts/fixtures, a real HTTP server started
 * here on loopback (FAKE_MODEL_URL lets a test read what it received); the call deadline is
 * short, so a hanging upstream is a quick test. The gateway's own files are the only ones that
 * read what it forwards; the platform's contract test also calls its route (every documented
 * operation, with junk and valid ids and keys) and checks only that each answer is declared,
 * which holds with an upstream configured as without one (its 22 files pass either way).
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
    name: "platform",
    // npm test runs these beside lint, the type check and e2e on two cores: a CPU-bound
    // test gets seconds of margin, not vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: [
      "test/**/*.test.ts",
      "../leaderboard/test/**/*.test.ts",
      "../gateway/test/**/*.test.ts",
    ],
    setupFiles: ["./test/apply-migrations.ts"],
    // One workerd for the files a vitest worker runs, not one per file (test/apply-migrations.ts
    // empties storage before each file).
    isolate: false,
  },
});
