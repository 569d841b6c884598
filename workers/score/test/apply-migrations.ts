/**
 * Before each test file: storage emptied (`reset()`: D1, R2, KV, every Durable Object; not the
 * queues, docs/design.md "Where tests live"), then the D1 migrations applied. The project's
 * files share a workerd (`isolate: false`), so this is what keeps storage per file.
 */
import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";

await reset();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
