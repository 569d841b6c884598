/**
 * Test-only bindings, added by packages/db/vitest.config.ts. `env` from "cloudflare:workers"
 * is typed by `Cloudflare.Env` (the platform's generated `DB` among them), so the test
 * bindings extend it here.
 */
import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
