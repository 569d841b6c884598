/**
 * The bindings packages/db/vitest.config.ts declares (`DB`, a local D1, and the migrations).
 * `env` from "cloudflare:workers" is typed by `Cloudflare.Env`, so they extend it here; the
 * package reads the runtime's types only (worker-runtime.d.ts), not the platform's `Env`, whose
 * Durable Object types would bring every role's sources into this program.
 */
import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      DB: D1Database;
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
