/**
 * @module platform
 * The platform's one Worker (root wrangler.toml): composes the roles. `fetch` routes to the
 * ingest API; `queue` dispatches by queue name to the consumer registered for it;
 * `scheduled` runs the ingest sweep; the runner's Container class is exported for the
 * production env. Each role owns its code;
 * this file only wires them, so a split into separate Workers is a config change.
 */
import { ingestApp, sweepIngest } from "@bouts/ingest";
import { resolveQueueConsumer } from "./queues.ts";

export { RunnerContainer } from "./runner-container.ts";

export default {
  fetch(request, env, ctx) {
    return ingestApp.fetch(request, env, ctx);
  },
  async queue(batch, env, ctx) {
    const consume = resolveQueueConsumer(batch.queue);
    if (!consume) {
      // No consumer for this queue is deployed yet: keep the messages (retry, then DLQ)
      // rather than acknowledging work that nobody did.
      console.warn(`no consumer registered for queue ${batch.queue}; retrying`);
      batch.retryAll();
      return;
    }
    await consume(batch, env, ctx);
  },
  async scheduled(controller, env) {
    const swept = await sweepIngest(env, controller.scheduledTime);
    console.log(`ingest sweep: ${JSON.stringify(swept)}`);
  },
} satisfies ExportedHandler<Env>;
