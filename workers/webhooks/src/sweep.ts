/**
 * @module webhooks-worker/sweep
 * The webhook role's share of the platform cron: prunes the delivery log. Invariants: a
 * message and its attempts are kept for {@link DELIVERY_RETENTION_MS} after the message last
 * changed, then deleted together; one run deletes a bounded number, so a backlog drains over
 * several runs instead of one long request.
 */
import { createDb, pruneWebhookDeliveries } from "@bouts/db";

/** How long a delivery (message and attempts) stays in the log after it last changed: 30 days. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Messages deleted per statement batch. */
export const PRUNE_BATCH = 500;
/** Batches per run: at most 5,000 messages a run, 480,000 a day at one run every 15 min. */
export const PRUNE_MAX_BATCHES = 10;

/** Deletes deliveries older than the retention period; returns how many rows went. */
export async function sweepWebhooks(
  env: { DB: D1Database },
  now: number,
): Promise<{ messages: number; attempts: number }> {
  const db = createDb(env.DB);
  const total = { messages: 0, attempts: 0 };
  for (let i = 0; i < PRUNE_MAX_BATCHES; i++) {
    const pruned = await pruneWebhookDeliveries(db, now - DELIVERY_RETENTION_MS, PRUNE_BATCH);
    total.messages += pruned.messages;
    total.attempts += pruned.attempts;
    if (pruned.messages < PRUNE_BATCH) break;
  }
  return total;
}
