/**
 * Vitest project "webhooks-worker": the webhook routes and queue consumers in workerd through
 * the Cloudflare plugin, against the root wrangler.toml and the platform entry, with the D1
 * migrations applied in a setup file. Every outbound `fetch` (the deliveries) reaches a
 * Node-side scriptable receiver (test/receiver.ts) through `outboundService`.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { handleReceiver } from "./test/receiver.ts";

const root = path.join(import.meta.dirname, "../..");
const migrations = await readD1Migrations(path.join(root, "migrations"));

export default defineProject({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: {
        // Loopback targets are allowed here, as in local development.
        bindings: { TEST_MIGRATIONS: migrations, WEBHOOKS_ALLOW_LOOPBACK: "true" },
        // A queue nobody consumes: tests drive the consumer themselves with createMessageBatch.
        queueProducers: { WEBHOOKS: { queueName: "bouts-webhooks-test-sink" } },
        // WEBHOOKS_DLQ is the real `bouts-webhooks-dlq`, delivered promptly to the platform's
        // dead-letter consumer, so a test sees a dead letter arrive in the delivery log.
        queueConsumers: { "bouts-webhooks-dlq": { maxBatchTimeout: 0.05, maxRetries: 3 } },
        outboundService: handleReceiver,
      },
    }),
  ],
  test: {
    name: "webhooks-worker",
    // npm test runs these beside lint, the type check and e2e on two cores: a CPU-bound
    // test gets seconds of margin, not vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/apply-migrations.ts"],
    // One workerd for the files a vitest worker runs, not one per file (test/apply-migrations.ts
    // empties storage before each file).
    isolate: false,
  },
});
