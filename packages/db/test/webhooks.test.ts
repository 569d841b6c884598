/**
 * Proves the webhook sender's queries against a real D1: the endpoint cap and the test-event
 * quotas admit exactly their count under parallel calls, for one agent or endpoint only; a
 * message is stored once per (endpoint, event); a redelivery's compare-and-set lets one of
 * two callers win; deleting an endpoint takes its messages and attempts and nothing else; the
 * prune pages; an agent never reads another agent's endpoint.
 */
import { describe, expect, it } from "vitest";
import {
  countWebhookTests,
  deleteWebhookEndpoint,
  deleteWebhookMessages,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  findAgentWebhookEndpoint,
  findLatestWebhookAttempt,
  findRankingRoundedScore,
  findWebhookMessage,
  insertWebhookAttempt,
  insertWebhookEndpoint,
  insertWebhookEndpointWithinCap,
  insertWebhookMessages,
  insertWebhookTestMessageWithinQuota,
  listAgentWebhookEndpoints,
  listSubscribedWebhookEndpoints,
  listWebhookDeliveries,
  pruneWebhookDeliveries,
  reopenWebhookMessage,
  setWebhookMessageStatus,
  updateWebhookHealth,
  type WebhookEndpointRow,
} from "../src/index.ts";
import { T0, rows, seedEntrant, seedScored, testDb, uid } from "./seed.ts";

const db = testDb();

function endpoint(agentId: string, over: Partial<WebhookEndpointRow> = {}): WebhookEndpointRow {
  return {
    id: uid("ep"),
    agentId,
    url: "https://example.com/hook",
    eventTypes: JSON.stringify(["submission.scored"]),
    secrets: "[]",
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    consecutiveFailures: 0,
    lastSuccessAt: null,
    gone: false,
    createdAt: T0,
    ...over,
  };
}

const message = (endpointId: string, eventId = uid("evt"), createdAt = T0) => ({
  id: uid("msg"),
  endpointId,
  eventId,
  type: "submission.scored",
  body: `{"event":"${eventId}"}`,
  createdAt,
});

const attempt = (messageId: string, n: number) => ({
  messageId,
  attempt: n,
  at: T0 + n,
  outcome: "retry",
  reason: null,
  status: 500,
  latencyMs: 10,
  response: null,
  responseTruncated: false,
});

describe("insertWebhookEndpointWithinCap", () => {
  it("admits exactly 10 of 15 parallel registrations, and another agent's still", async () => {
    const a = (await seedEntrant(db)).agentId;
    const b = (await seedEntrant(db)).agentId;
    const results = await Promise.all(
      Array.from({ length: 15 }, () => insertWebhookEndpointWithinCap(db, endpoint(a), 10)),
    );
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await listAgentWebhookEndpoints(db, a)).toHaveLength(10);
    expect(await insertWebhookEndpointWithinCap(db, endpoint(b), 10)).toBe(true);
    expect(await listAgentWebhookEndpoints(db, b)).toHaveLength(1);
  });

  it("admits none under a cap of 0, and one more after a deletion at the cap", async () => {
    const a = (await seedEntrant(db)).agentId;
    expect(await insertWebhookEndpointWithinCap(db, endpoint(a), 0)).toBe(false);
    const first = endpoint(a);
    expect(await insertWebhookEndpointWithinCap(db, first, 1)).toBe(true);
    expect(await insertWebhookEndpointWithinCap(db, endpoint(a), 1)).toBe(false);
    await deleteWebhookEndpoint(db, first.id);
    expect(await insertWebhookEndpointWithinCap(db, endpoint(a), 1)).toBe(true);
  });
});

describe("insertWebhookTestMessageWithinQuota", () => {
  it("stores exactly the per-endpoint quota of parallel test events, counting only the window", async () => {
    const a = (await seedEntrant(db)).agentId;
    const ep = endpoint(a);
    await insertWebhookEndpoint(db, ep);
    const quota = { since: T0 + 1000, perEndpoint: 5, perAgent: 20 };
    // An old test event, before the window, does not count.
    expect(
      await insertWebhookTestMessageWithinQuota(db, message(ep.id, uid("t"), T0), a, quota),
    ).toBe(true);
    const results = await Promise.all(
      Array.from({ length: 9 }, () =>
        insertWebhookTestMessageWithinQuota(db, message(ep.id, uid("t"), T0 + 2000), a, quota),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(5);
    expect(await countWebhookTests(db, { endpointId: ep.id }, quota.since)).toEqual({
      count: 5,
      oldestAt: T0 + 2000,
    });
    expect(await countWebhookTests(db, { endpointId: ep.id }, 0)).toMatchObject({ count: 6 });
  });

  it("stores at most the per-agent quota across the agent's endpoints", async () => {
    const a = (await seedEntrant(db)).agentId;
    const b = (await seedEntrant(db)).agentId;
    const eps = [endpoint(a), endpoint(a), endpoint(a)];
    for (const ep of eps) await insertWebhookEndpoint(db, ep);
    const theirs = endpoint(b);
    await insertWebhookEndpoint(db, theirs);
    const quota = { since: T0, perEndpoint: 5, perAgent: 7 };
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        insertWebhookTestMessageWithinQuota(
          db,
          message(eps[i % 3]?.id ?? "", uid("t"), T0 + 1),
          a,
          quota,
        ),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(7);
    expect((await countWebhookTests(db, { agentId: a }, T0)).count).toBe(7);
    expect(
      await insertWebhookTestMessageWithinQuota(db, message(theirs.id, uid("t"), T0 + 1), b, quota),
    ).toBe(true);
  });
});

describe("messages", () => {
  it("stores a message once per endpoint and event, answering only the new ids", async () => {
    const a = (await seedEntrant(db)).agentId;
    const ep = endpoint(a);
    await insertWebhookEndpoint(db, ep);
    const first = message(ep.id, "evt-same");
    expect(await insertWebhookMessages(db, [first])).toEqual([first.id]);
    const repeat = message(ep.id, "evt-same");
    const fresh = message(ep.id, "evt-new");
    expect(await insertWebhookMessages(db, [repeat, fresh])).toEqual([fresh.id]);
    expect(await insertWebhookMessages(db, [])).toEqual([]);
    expect(await findWebhookMessage(db, first.id)).toMatchObject({
      message: { status: "pending", updatedAt: T0, eventId: "evt-same" },
      endpoint: { id: ep.id },
    });
    expect(await findWebhookMessage(db, repeat.id)).toBeUndefined();
    await deleteWebhookMessages(db, [fresh.id]);
    expect(await findWebhookMessage(db, fresh.id)).toBeUndefined();
  });

  it("stores one event's messages for 30 endpoints (more than one statement binds), all or none", async () => {
    // An agent may hold more endpoints than today's cap if it registered them before the cap.
    const a = (await seedEntrant(db)).agentId;
    const eps = Array.from({ length: 30 }, () => endpoint(a));
    for (const ep of eps) await insertWebhookEndpoint(db, ep);
    const batch = eps.map((ep) => message(ep.id, "evt-wide"));
    expect(await insertWebhookMessages(db, batch)).toEqual(batch.map((m) => m.id));
    for (const m of [batch[0]!, batch[12]!, batch[29]!]) {
      expect(await findWebhookMessage(db, m.id)).toMatchObject({
        message: { eventId: "evt-wide" },
      });
    }
    const again = eps.map((ep) => message(ep.id, "evt-wide"));
    expect(await insertWebhookMessages(db, again)).toEqual([]);
  });

  it("stores one event's messages for all 10 endpoints an agent may have in one call", async () => {
    const a = (await seedEntrant(db)).agentId;
    const eps = Array.from({ length: 10 }, () => endpoint(a));
    for (const ep of eps) await insertWebhookEndpoint(db, ep);
    const batch = eps.map((ep) => message(ep.id, "evt-fanout"));
    expect(await insertWebhookMessages(db, batch)).toEqual(batch.map((m) => m.id));
    expect(
      await insertWebhookMessages(
        db,
        eps.map((ep) => message(ep.id, "evt-fanout")),
      ),
    ).toEqual([]);
  });

  it("reopens a message for one of two concurrent redeliveries", async () => {
    const a = (await seedEntrant(db)).agentId;
    const ep = endpoint(a);
    await insertWebhookEndpoint(db, ep);
    const m = message(ep.id);
    await insertWebhookMessages(db, [m]);
    await setWebhookMessageStatus(db, m.id, "dead", T0 + 5);
    const seen = { status: "dead" as const, updatedAt: T0 + 5 };
    const results = await Promise.all([
      reopenWebhookMessage(db, m.id, seen, T0 + 6),
      reopenWebhookMessage(db, m.id, seen, T0 + 7),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await findWebhookMessage(db, m.id))?.message.status).toBe("pending");
  });

  it("lists an endpoint's newest deliveries with their attempts in order", async () => {
    const a = (await seedEntrant(db)).agentId;
    const ep = endpoint(a);
    await insertWebhookEndpoint(db, ep);
    const older = message(ep.id, uid("e"), T0);
    const newer = message(ep.id, uid("e"), T0 + 10);
    await insertWebhookMessages(db, [older, newer]);
    await insertWebhookAttempt(db, attempt(older.id, 1));
    await insertWebhookAttempt(db, attempt(older.id, 2));
    const log = await listWebhookDeliveries(db, ep.id, 10);
    expect(log.map((d) => [d.message.id, d.attempts.map((x) => x.attempt)])).toEqual([
      [newer.id, []],
      [older.id, [1, 2]],
    ]);
    expect((await listWebhookDeliveries(db, ep.id, 1)).map((d) => d.message.id)).toEqual([
      newer.id,
    ]);
    expect((await findLatestWebhookAttempt(db, older.id))?.attempt).toBe(2);
    expect(await findLatestWebhookAttempt(db, newer.id)).toBeUndefined();
  });

  it("prunes settled messages with their attempts, oldest first, `limit` at a time", async () => {
    const a = (await seedEntrant(db)).agentId;
    const ep = endpoint(a);
    await insertWebhookEndpoint(db, ep);
    // Older than every other test's messages.
    const start = T0 - 1_000_000;
    const all = Array.from({ length: 130 }, (_, i) => message(ep.id, uid("e"), start + i));
    // Ten rows a call: 8 bound parameters each, D1 takes at most 100 a statement.
    for (let i = 0; i < all.length; i += 10) await insertWebhookMessages(db, all.slice(i, i + 10));
    for (const m of all.slice(0, 3)) await insertWebhookAttempt(db, attempt(m.id, 1));
    expect(await pruneWebhookDeliveries(db, start + 120, 100)).toEqual({
      messages: 100,
      attempts: 3,
    });
    expect(await findWebhookMessage(db, all[99]?.id ?? "")).toBeUndefined();
    expect(await findWebhookMessage(db, all[100]?.id ?? "")).toBeDefined();
    expect(await pruneWebhookDeliveries(db, start + 120, 100)).toEqual({
      messages: 20,
      attempts: 0,
    });
    expect(await listWebhookDeliveries(db, ep.id, 1000)).toHaveLength(10);
  });
});

describe("endpoints", () => {
  it("deletes an endpoint with its messages and attempts, and nothing of another", async () => {
    const a = (await seedEntrant(db)).agentId;
    const doomed = endpoint(a);
    const kept = endpoint(a);
    await insertWebhookEndpoint(db, doomed);
    await insertWebhookEndpoint(db, kept);
    const m1 = message(doomed.id);
    const m2 = message(kept.id);
    await insertWebhookMessages(db, [m1, m2]);
    await insertWebhookAttempt(db, attempt(m1.id, 1));
    await insertWebhookAttempt(db, attempt(m2.id, 1));
    await deleteWebhookEndpoint(db, doomed.id);
    expect(await rows("SELECT id FROM webhook_endpoints WHERE agent_id = ?1", a)).toEqual([
      { id: kept.id },
    ]);
    expect(
      await rows(
        "SELECT message_id FROM webhook_attempts WHERE message_id IN (?1, ?2)",
        m1.id,
        m2.id,
      ),
    ).toEqual([{ message_id: m2.id }]);
    expect(await findWebhookMessage(db, m2.id)).toBeDefined();
  });

  it("reads an endpoint only for its own agent, and subscribed enabled endpoints by type", async () => {
    const a = (await seedEntrant(db)).agentId;
    const b = (await seedEntrant(db)).agentId;
    const scored = endpoint(a);
    const other = endpoint(a, { eventTypes: JSON.stringify(["submission.failed"]) });
    const off = endpoint(a);
    for (const ep of [scored, other, off]) await insertWebhookEndpoint(db, ep);
    expect(await findAgentWebhookEndpoint(db, b, scored.id)).toBeUndefined();
    expect((await findAgentWebhookEndpoint(db, a, scored.id))?.id).toBe(scored.id);

    await disableWebhookEndpoint(db, off.id, T0 + 1, "410 Gone");
    await disableWebhookEndpoint(db, off.id, T0 + 2, "second reason");
    expect((await findAgentWebhookEndpoint(db, a, off.id))?.disabledReason).toBe("410 Gone");
    const subscribed = await listSubscribedWebhookEndpoints(db, a, "submission.scored");
    expect(subscribed.map((e) => e.id)).toEqual([scored.id]);

    await updateWebhookHealth(db, off.id, {
      failingSince: T0,
      consecutiveFailures: 4,
      lastSuccessAt: null,
      gone: true,
    });
    await enableWebhookEndpoint(db, off.id);
    expect(await findAgentWebhookEndpoint(db, a, off.id)).toMatchObject({
      disabledAt: null,
      disabledReason: null,
      gone: false,
      consecutiveFailures: 4,
      failingSince: T0,
    });
    expect(
      (await listSubscribedWebhookEndpoints(db, a, "submission.scored")).map((e) => e.id).sort(),
    ).toEqual([scored.id, off.id].sort());
  });
});

describe("findRankingRoundedScore", () => {
  it("answers the latest score under 'latest' and the best under 'best'", async () => {
    for (const [mode, expected] of [
      ["latest", 40],
      ["best", 90],
    ] as const) {
      const { agentId, challengeId } = await seedEntrant(db, { rankingMode: mode });
      expect(await findRankingRoundedScore(db, agentId, challengeId)).toBeNull();
      await seedScored(db, agentId, challengeId, { finalRounded: 90 });
      await seedScored(db, agentId, challengeId, { finalRounded: 40 });
      expect(await findRankingRoundedScore(db, agentId, challengeId)).toBe(expected);
    }
  });
});
