import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index.ts";

describe("the platform Worker", () => {
  it("routes fetch to the ingest app", async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request("http://platform.test/healthz"), env, ctx);
    expect(res.status).toBe(200);
  });

  it("keeps messages of a queue that has no consumer yet (retry, then dead-letter)", async () => {
    const batch = createMessageBatch("bouts-webhooks", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { v: 1 } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryBatch.retry).toBe(true);
    expect(result.explicitAcks).toEqual([]);
  });
});

describe("the platform's schedule", () => {
  it("runs the ingest sweep, which removes an old object no row references", async () => {
    await env.ARTIFACTS.put("artifacts/orphan", "left by a request that died");
    const controller = createScheduledController({
      scheduledTime: Date.now() + 3_600_000,
      cron: "*/15 * * * *",
    });
    await worker.scheduled(controller, env);
    expect(await env.ARTIFACTS.head("artifacts/orphan")).toBeNull();
  });
});
