/**
 * Test-only bindings, added by workers/platform/vitest.config.ts (the project these tests run
 * in), and LEADERBOARD typed by this role's own class. `env` from "cloudflare:workers" is typed
 * by `Cloudflare.Env`, so they extend it here.
 */
import type { D1Migration } from "cloudflare:test";
import type { ChallengeLeaderboard } from "../src/leaderboard-object.ts";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      LEADERBOARD: DurableObjectNamespace<ChallengeLeaderboard>;
    }
  }
}
