/** Test-only bindings added by workers/score/vitest.config.ts. */
import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      RUNNER_HTTP: Fetcher;
      RUNNER_SHARED_SECRET: string;
      FIXTURES: Fetcher;
    }
  }
}
