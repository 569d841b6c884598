/**
 * The webhook limits under concurrency, through the platform Worker's fetch: N requests at once
 * against a cap, and exactly the cap succeeds; the rest get the documented refusal (409
 * `endpoint-limit`, 429 `test-quota`). Invariant checked: D1 holds no more rows than the cap,
 * whatever the interleaving (each limit is a conditional insert, docs/design.md §35).
 */
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb, webhookEndpoints, webhookMessages } from "@bouts/db";
import {
  MAX_ENDPOINTS_PER_AGENT,
  MAX_TESTS_PER_AGENT,
  MAX_TESTS_PER_ENDPOINT,
} from "../src/index.ts";
import { call, callJson, expectProblem, RECEIVER_PORT, register, seedAgents } from "./helpers.ts";

/** Splits answers into the successes (`status`) and the others. */
function partition(answers: Response[], status: number) {
  return {
    ok: answers.filter((r) => r.status === status),
    refused: answers.filter((r) => r.status !== status),
  };
}

const testEvent = (token: string, endpointId: string) =>
  call(`/v1/webhooks/${endpointId}/test`, { method: "POST", token });

const storedTests = async (endpointId: string) =>
  (
    await createDb(env.DB)
      .select()
      .from(webhookMessages)
      .where(
        and(eq(webhookMessages.endpointId, endpointId), eq(webhookMessages.type, "webhook.test")),
      )
      .all()
  ).length;

describe("limits under concurrency", () => {
  it("registers exactly the endpoint cap of 40 parallel registrations", async () => {
    const { a } = await seedAgents();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        callJson(
          "/v1/webhooks",
          "POST",
          {
            url: `http://127.0.0.1:${RECEIVER_PORT}/conc/reg/${i}`,
            eventTypes: ["submission.scored"],
          },
          a.token,
        ),
      ),
    );
    const { ok, refused } = partition(answers, 201);
    expect(ok).toHaveLength(MAX_ENDPOINTS_PER_AGENT);
    expect(refused).toHaveLength(40 - MAX_ENDPOINTS_PER_AGENT);
    for (const r of refused) {
      const problem = await expectProblem(r, 409);
      expect(problem.type).toBe("urn:bouts:problem:endpoint-limit");
      expect(problem.detail).toMatch(/at most 10 webhook endpoints/);
    }
    const rows = await createDb(env.DB)
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.agentId, a.id))
      .all();
    expect(rows).toHaveLength(MAX_ENDPOINTS_PER_AGENT);
  });

  it("queues exactly the per-endpoint test quota of 40 parallel test requests", async () => {
    const { a } = await seedAgents();
    const endpoint = await register(a.token, "/conc/test-endpoint");
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => testEvent(a.token, endpoint.id)),
    );
    const { ok, refused } = partition(answers, 202);
    expect(ok).toHaveLength(MAX_TESTS_PER_ENDPOINT);
    for (const r of refused) {
      const problem = await expectProblem(r, 429);
      expect(problem.type).toBe("urn:bouts:problem:test-quota");
      expect(problem.detail).toMatch(/per endpoint/);
      expect(Number(r.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    expect(await storedTests(endpoint.id)).toBe(MAX_TESTS_PER_ENDPOINT);
  });

  it("queues exactly the per-agent test quota of 40 parallel test requests over 8 endpoints", async () => {
    const { a } = await seedAgents();
    const endpoints = [];
    for (let i = 0; i < 8; i++) endpoints.push(await register(a.token, `/conc/test-agent/${i}`));
    // 5 per endpoint: each endpoint's own quota allows all of them, the agent's 20 does not.
    const answers = await Promise.all(
      endpoints.flatMap((e) => Array.from({ length: 5 }, () => testEvent(a.token, e.id))),
    );
    const { ok, refused } = partition(answers, 202);
    expect(ok).toHaveLength(MAX_TESTS_PER_AGENT);
    for (const r of refused) {
      const problem = await expectProblem(r, 429);
      expect(problem.type).toBe("urn:bouts:problem:test-quota");
    }
    let stored = 0;
    for (const e of endpoints) stored += await storedTests(e.id);
    expect(stored).toBe(MAX_TESTS_PER_AGENT);
  });
});
