/**
 * Test-only bindings, added by workers/ingest/vitest.config.ts. `env` from
 * "cloudflare:workers" is typed by `Cloudflare.Env`, so the test bindings extend it here.
 */
import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** challenges/deep-merge as a bundle (.tar.gz, base64). */
      TEST_BUNDLE_DEEP_MERGE: string;
      /** The same bundle with a reference solution that fails its tests. */
      TEST_BUNDLE_DEEP_MERGE_BROKEN: string;
      /** @bouts/archive's hostile corpus: JSON of { name, refusal, base64 }[]. */
      TEST_HOSTILE_ARCHIVES: string;
      /** The secret the runner (real and stand-in) checks signatures with. */
      RUNNER_SHARED_SECRET: string;
    }
  }
}
