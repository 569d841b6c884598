/** Test-only bindings the gateway's tests read, added by workers/platform/vitest.config.ts. */
import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** The fake model's base URL (…/v1); `GET <origin>/__received` lists what it received. */
      FAKE_MODEL_URL: string;
    }
  }
}
