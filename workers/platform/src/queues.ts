/**
 * @module platform/queues
 * Queue name → consumer. Queue names come from wrangler.toml; a queue without an entry
 * here has no consumer in this Worker yet (the platform entry retries its messages).
 */
import { consumeDeadSubmissions, consumeSubmissions } from "@bouts/score";
import { consumeDeadWebhooks, consumeWebhooks } from "@bouts/webhooks-worker";

/** A queue consumer as the platform entry calls it. */
export type QueueConsumer = (batch: MessageBatch, env: Env, ctx: ExecutionContext) => Promise<void>;

/** The consumers this Worker runs, by queue name. */
const QUEUE_CONSUMERS: Readonly<Record<string, QueueConsumer>> = {
  "bouts-submissions": (batch, env) => consumeSubmissions(batch, env),
  "bouts-submissions-dlq": (batch, env) => consumeDeadSubmissions(batch, env),
  "bouts-webhooks": (batch, env) => consumeWebhooks(batch, env),
  "bouts-webhooks-dlq": (batch, env) => consumeDeadWebhooks(batch, env),
};

/** Returns the consumer for `queue`, or undefined when none is registered. */
export function resolveQueueConsumer(queue: string): QueueConsumer | undefined {
  return Object.hasOwn(QUEUE_CONSUMERS, queue) ? QUEUE_CONSUMERS[queue] : undefined;
}
