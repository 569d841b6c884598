/**
 * @module platform
 * The platform's one Worker (root wrangler.toml): composes the roles. `fetch` is the one Hono
 * app (`app.ts`: every role's routes, each with its own access); `queue` dispatches by queue
 * name (the score role consumes submissions, the webhook role webhook events and deliveries,
 * each with its dead letters); `scheduled` runs the ingest sweep and the scoring reconciler
 * (stranded queued, waiting, running, unpublished submissions) and prunes the webhook
 * delivery log. It exports the ChallengeLeaderboard Durable Object and, for production, the
 * runner's Container class. Each role owns its code; this Worker only wires them.
 */
import { sweepIngest } from "@bouts/ingest";
import { reconcileScoring } from "@bouts/score";
import { sweepWebhooks } from "@bouts/webhooks-worker";
import { createPlatformApp } from "./app.ts";
import { resolveQueueConsumer } from "./queues.ts";

export { ChallengeLeaderboard } from "@bouts/leaderboard";
export { RunnerContainer } from "./runner-container.ts";

export { createPlatformApp, type PlatformAppOptions } from "./app.ts";

const app = createPlatformApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
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
    // Independent: an ingest sweep that throws (D1 down) must not skip the reconciler.
    const [ingest, scoring, webhooks] = await Promise.allSettled([
      sweepIngest(env, controller.scheduledTime),
      reconcileScoring(env, controller.scheduledTime),
      sweepWebhooks(env, controller.scheduledTime),
    ]);
    for (const [name, r] of [
      ["ingest sweep", ingest],
      ["scoring reconciler", scoring],
      ["webhooks sweep", webhooks],
    ] as const) {
      if (r.status === "fulfilled") console.log(`${name}: ${JSON.stringify(r.value)}`);
      else console.error(`${name} failed: ${String(r.reason)}`);
    }
    if ([ingest, scoring, webhooks].some((r) => r.status === "rejected"))
      throw new Error("a scheduled sweep failed; see the log");
  },
} satisfies ExportedHandler<Env>;
