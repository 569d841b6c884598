/**
 * The reader of observed model usage (src/observed-usage.ts), from each source: none; the
 * metering gateway's D1 record; and AI Gateway's logs API, read by the real adapter from a local
 * fake of that API (@bouts/fixtures, reached as http://ai-gateway.test). A call counts only for
 * the agent and challenge its metadata names, only inside (from, to]; untyped token counts are
 * calls without usage; pages are read until the window is covered, and never past the bound.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildGatewayMetadata } from "@bouts/contracts";
import {
  createDb,
  enterChallenge,
  insertChallenge,
  insertOperator,
  agents,
  recordGatewayCall,
} from "@bouts/db";
import type { FakeGatewayLog } from "@bouts/fixtures";
import {
  AI_GATEWAY_LOGS_PER_PAGE,
  AI_GATEWAY_MAX_PAGES,
  readObservedUsage,
} from "../src/observed-usage.ts";

const T0 = 1_800_000_000_000;
const API = "http://ai-gateway.test";
let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${(seq += 1)}`;

/** The env of the score role with the observed-usage variables of `vars`. */
const withVars = (vars: Record<string, string>) => ({ ...env, ...vars });

/** An env reading AI Gateway's logs from the fake, for a fresh gateway id. */
function aiGatewayEnv(apiUrl = `${API}/client/v4`) {
  const gateway = uid("gw");
  return {
    gateway,
    env: withVars({
      GATEWAY_USAGE_SOURCE: "ai-gateway",
      GATEWAY_LOGS_API_URL: apiUrl,
      GATEWAY_LOGS_ACCOUNT_ID: "acct0123",
      GATEWAY_LOGS_GATEWAY_ID: gateway,
      GATEWAY_LOGS_API_TOKEN: "cf-logs-token",
    }),
  };
}

async function storeLogs(gateway: string, logs: FakeGatewayLog[]) {
  const res = await fetch(`${API}/__logs/acct0123/${gateway}`, {
    method: "POST",
    body: JSON.stringify(logs),
  });
  expect(res.status).toBe(204);
}

async function requestsTo(gateway: string) {
  const all = await (
    await fetch(`${API}/__requests`)
  ).json<{ url: string; authorization: string | null }[]>();
  return all.filter((r) => r.url.includes(`/gateways/${gateway}/logs`));
}

/** A logged call of `agentId` on `challengeId` at `at`. */
function log(
  agentId: string,
  challengeId: string,
  at: number,
  over: Partial<FakeGatewayLog> = {},
): FakeGatewayLog {
  return {
    id: uid("log"),
    created_at: new Date(at).toISOString(),
    model: "model-a",
    provider: "openai",
    success: true,
    tokens_in: 100,
    tokens_out: 10,
    metadata: JSON.stringify(buildGatewayMetadata({ agentId, challengeId })),
    ...over,
  };
}

describe("the observed usage, by source", () => {
  it("is null, read from nowhere, with GATEWAY_USAGE_SOURCE=none", async () => {
    const read = await readObservedUsage(withVars({ GATEWAY_USAGE_SOURCE: "none" }), {
      agentId: "a",
      challengeId: "c",
      from: null,
      to: T0,
    });
    expect(read).toEqual({ ok: true, value: null });
  });

  it("is the gateway's D1 record with GATEWAY_USAGE_SOURCE=gateway", async () => {
    const db = createDb(env.DB);
    const operatorId = uid("op");
    const challengeId = uid("ch");
    const agentId = uid("agent");
    await insertOperator(db, { id: operatorId, name: "ops", createdAt: T0 });
    await insertChallenge(db, {
      id: challengeId,
      slug: challengeId,
      title: "t",
      description: "",
      status: "published",
      profile: "agent",
      family: "default",
      customWeights: null,
      rankingMode: "latest",
      maxIterations: 10,
      limits: "{}",
      bundleKey: null,
      bundleSha256: null,
      bundleManifest: null,
      qaReport: null,
      qaPassed: true,
      createdBy: operatorId,
      createdAt: T0,
      updatedAt: T0,
      publishedAt: T0,
      closedAt: null,
      closesAt: null,
      version: 1,
    });
    await db.insert(agents).values({ id: agentId, name: agentId, operatorId, createdAt: T0 });
    await enterChallenge(db, { agentId, challengeId, enteredAt: T0 });
    await recordGatewayCall(db, {
      id: uid("call"),
      agentId,
      challengeId,
      model: "model-a",
      tokensIn: 40,
      tokensOut: 4,
      status: 200,
      failure: null,
      streamed: false,
      requestBytes: 10,
      startedAt: T0 + 5,
      finishedAt: T0 + 6,
    });
    const read = await readObservedUsage(withVars({ GATEWAY_USAGE_SOURCE: "gateway" }), {
      agentId,
      challengeId,
      from: T0,
      to: T0 + 10,
    });
    expect(read).toEqual({
      ok: true,
      value: {
        source: "gateway",
        calls: 1,
        tokensIn: 40,
        tokensOut: 4,
        callsWithoutUsage: 0,
        models: [{ model: "model-a", calls: 1, tokensIn: 40, tokensOut: 4 }],
        from: T0,
        to: T0 + 10,
      },
    });
  });
});

describe("AI Gateway's logs", () => {
  it("counts exactly the entry's calls in (from, to], by model, untyped counts as calls without usage", async () => {
    const { gateway, env: e } = aiGatewayEnv();
    const [a, b, one, two] = ["agent-a", "agent-b", "ch-1", "ch-2"];
    const from = T0 + 1000;
    const to = T0 + 2000;
    await storeLogs(gateway, [
      log(a, one, from), // exactly at `from`: out
      log(a, one, from + 1, { tokens_in: 7, tokens_out: 3 }),
      log(a, one, from + 500, { model: "model-b" }),
      log(a, one, from + 600, { tokens_in: "12", tokens_out: 5 }),
      log(a, one, from + 700, { tokens_in: 1e300, tokens_out: 2.5 }),
      log(a, one, from + 800, { tokens_in: null, tokens_out: null, success: false }),
      log(a, one, to), // exactly at `to`: in
      log(a, one, to + 1), // after `to`: out
      log(a, two, from + 100, { tokens_in: 5000 }), // the same agent on another challenge
      log(b, one, from + 100, { tokens_in: 5000 }), // another agent on this challenge
      // A call whose entry value matches the filter but whose ids do not: not this entry's.
      log(b, one, from + 100, {
        tokens_in: 5000,
        metadata: JSON.stringify({
          bouts_agent: b,
          bouts_challenge: one,
          bouts_entry: `${a}/${one}`,
        }),
      }),
      log(a, one, from + 100, { metadata: "not json", tokens_in: 5000 }),
    ]);
    const read = await readObservedUsage(e, { agentId: a, challengeId: one, from, to });
    expect(read).toEqual({
      ok: true,
      value: {
        source: "ai-gateway",
        calls: 6,
        tokensIn: 207,
        tokensOut: 23,
        callsWithoutUsage: 3,
        models: [
          { model: "model-a", calls: 5, tokensIn: 107, tokensOut: 13 },
          { model: "model-b", calls: 1, tokensIn: 100, tokensOut: 10 },
        ],
        from,
        to,
      },
    });
    const [request] = await requestsTo(gateway);
    expect(request!.authorization).toBe("Bearer cf-logs-token");
    const q = new URL(request!.url, API).searchParams;
    expect(q.getAll("filters.key")).toEqual(["metadata.value"]);
    expect(q.getAll("filters.operator")).toEqual(["eq"]);
    expect(q.getAll("filters.value")).toEqual([`${a}/${one}`]);
    expect(q.get("order_by")).toBe("created_at");
    expect(q.get("order_by_direction")).toBe("desc");
  });

  it("is null when the entry has no logged call in the window", async () => {
    const { gateway, env: e } = aiGatewayEnv();
    await storeLogs(gateway, [log("x", "y", T0 + 5)]);
    expect(
      await readObservedUsage(e, { agentId: "x", challengeId: "y", from: T0 + 5, to: T0 + 9 }),
    ).toEqual({ ok: true, value: null });
  });

  it("reads every page of a long window, and stops once a page reaches back past `from`", async () => {
    const { gateway, env: e } = aiGatewayEnv();
    const calls = Array.from({ length: 2 * AI_GATEWAY_LOGS_PER_PAGE + 7 }, (_, i) =>
      log("p", "q", T0 + 10_000 + i),
    );
    const older = Array.from({ length: 5 * AI_GATEWAY_LOGS_PER_PAGE }, (_, i) =>
      log("p", "q", T0 + i),
    );
    await storeLogs(gateway, [...calls, ...older]);
    const all = await readObservedUsage(e, {
      agentId: "p",
      challengeId: "q",
      from: null,
      to: T0 + 1e6,
    });
    expect(all.ok && all.value?.calls).toBe(calls.length + older.length);
    const before = (await requestsTo(gateway)).length;
    expect(before).toBe(Math.ceil((calls.length + older.length) / AI_GATEWAY_LOGS_PER_PAGE));
    const recent = await readObservedUsage(e, {
      agentId: "p",
      challengeId: "q",
      from: T0 + 9_999,
      to: T0 + 1e6,
    });
    expect(recent.ok && recent.value?.calls).toBe(calls.length);
    // Newest first: the third page holds the first older call, and reading stops there.
    expect((await requestsTo(gateway)).length - before).toBe(3);
  });

  it("is unavailable past its page bound, never a partial count", async () => {
    const { gateway, env: e } = aiGatewayEnv();
    await storeLogs(
      gateway,
      Array.from({ length: AI_GATEWAY_MAX_PAGES * AI_GATEWAY_LOGS_PER_PAGE + 1 }, (_, i) =>
        log("big", "spender", T0 + i),
      ),
    );
    const read = await readObservedUsage(e, {
      agentId: "big",
      challengeId: "spender",
      from: null,
      to: T0 + 1e9,
    });
    expect(read).toMatchObject({
      ok: false,
      error: { reason: "usage-unavailable", retryable: true },
    });
    expect((await requestsTo(gateway)).length).toBe(AI_GATEWAY_MAX_PAGES);
  });

  it("is unavailable, to retry, when the API refuses, cannot be reached or answers another shape", async () => {
    const { env: e } = aiGatewayEnv();
    const q = { agentId: "a", challengeId: "c", from: null, to: T0 };
    for (const [url, why] of [
      [`${API}/client/v4/nowhere`, /answered 404/],
      ["http://unreachable.test/client/v4", /answered 502/],
    ] as const) {
      const read = await readObservedUsage(aiGatewayEnv(url).env, q);
      expect(read).toMatchObject({
        ok: false,
        error: { reason: "usage-unavailable", retryable: true },
      });
      expect(!read.ok && read.error.detail).toMatch(why);
    }
    const odd = await readObservedUsage(e, q, {
      fetch: () => Promise.resolve(Response.json({ success: true, result: "none" })),
    });
    expect(!odd.ok && odd.error.detail).toMatch(/unexpected shape/);
    const down = await readObservedUsage(e, q, { fetch: () => Promise.reject(new Error("reset")) });
    expect(!down.ok && down.error.detail).toMatch(/could not be reached: reset/);
  });
});
