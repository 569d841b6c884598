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
  it("serves one OpenAPI 3.1 document with every role's routes", async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request("http://platform.test/openapi.json"), env, ctx);
    expect(res.status).toBe(200);
    const doc = await res.json<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    }>();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/challenges/{id}/submissions",
        "/v1/challenges/{id}/leaderboard",
        "/v1/submissions/{id}/breakdown",
        "/v1/webhooks",
      ]),
    );
    expect(doc.paths["/v1/challenges"]!.get).toBeDefined();
  });

  it("routes fetch to the ingest app", async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request("http://platform.test/healthz"), env, ctx);
    expect(res.status).toBe(200);
    // The runner's state is reported beside the Worker's own (here no runner URL is set).
    const body = await res.json<{ ok: boolean; runner: { state: string } }>();
    expect(body.ok).toBe(true);
    expect(typeof body.runner.state).toBe("string");
  });

  it("keeps messages of a queue that has no consumer yet (retry, then dead-letter)", async () => {
    const batch = createMessageBatch("bouts-not-consumed", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { v: 1 } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryBatch.retry).toBe(true);
    expect(result.explicitAcks).toEqual([]);
  });

  it("dispatches the webhooks queue to the webhook consumer", async () => {
    // A message no producer sends is dropped (acked) by the consumer, not retried forever.
    const batch = createMessageBatch("bouts-webhooks", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { v: 1 } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
  });

  it("routes /v1/webhooks to the webhook role", async () => {
    const res = await worker.fetch(
      new Request("http://x/v1/webhooks"),
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
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
