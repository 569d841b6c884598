/**
 * Before each test file: every binding's storage emptied (D1, KV, R2 and the Durable Objects:
 * `reset()`), then the D1 migrations applied. The project's files share a workerd
 * (`isolate: false`), so this is what keeps storage per file.
 */
import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";

await reset();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
