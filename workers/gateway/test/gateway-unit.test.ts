/**
 * The gateway's route on an app of its own (the edge kit's `createApp`), with the env's variables
 * changed per test: no upstream is a 503; an AI Gateway upstream gets the metadata naming agent,
 * challenge and entry, and the gateway's token; an unreachable upstream is a 502, recorded. And
 * the readers of usage: counts are taken only when well-typed; the stream tap reads the final
 * usage however the bytes are split, and never holds more than one bounded line.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "@bouts/edge";
import { gatewayRoutes } from "../src/index.ts";
import { createUsageTap, MAX_SSE_LINE, readUsage } from "../src/usage.ts";
import {
  callsOf,
  completions,
  enter,
  expectProblem,
  marker,
  receivedWith,
  seedWorld,
} from "./helpers.ts";

const app = createApp<{ Bindings: Env }>().route("/v1", gatewayRoutes);

/** Calls the route with the test env's bindings and `vars` over its variables. */
async function callWith(
  vars: Record<string, string>,
  challengeId: string,
  token: string,
  body: unknown,
) {
  const ctx = createExecutionContext();
  const res = await app.request(
    completions(challengeId),
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    },
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

async function entrant() {
  const { agents, challenges } = await seedWorld();
  await enter(agents[0]!, challenges[0]!);
  return { agent: agents[0]!, challengeId: challenges[0]! };
}

describe("the gateway's upstream, as configured", () => {
  it("is off without GATEWAY_UPSTREAM_URL: 503, nothing recorded", async () => {
    const { agent, challengeId } = await entrant();
    const res = await callWith({ GATEWAY_UPSTREAM_URL: "" }, challengeId, agent.token, {
      model: "model-a",
      messages: [],
    });
    const problem = await expectProblem(res, 503);
    expect(problem.detail).toContain("The gateway has no upstream");
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(await callsOf(agent.id)).toEqual([]);
  });

  it("tells AI Gateway whose call it is (cf-aig-metadata) and sends its token", async () => {
    const { agent, challengeId } = await entrant();
    const m = marker();
    const res = await callWith(
      { GATEWAY_UPSTREAM_KIND: "ai-gateway", GATEWAY_AIG_TOKEN: "cf-aig-test-token" },
      challengeId,
      agent.token,
      { model: "model-a", messages: [{ role: "user", content: m }] },
    );
    expect(res.status).toBe(200);
    const [sent] = await receivedWith(m);
    const metadata = JSON.parse(sent!.headers["cf-aig-metadata"]!) as Record<string, unknown>;
    expect(metadata).toEqual({
      bouts_agent: agent.id,
      bouts_challenge: challengeId,
      bouts_entry: `${agent.id}/${challengeId}`,
    });
    // AI Gateway keeps at most five entries, of strings, numbers or booleans.
    expect(Object.keys(metadata).length).toBeLessThanOrEqual(5);
    expect(sent!.headers["cf-aig-authorization"]).toBe("Bearer cf-aig-test-token");
    expect(sent!.headers["authorization"]).toBe("Bearer sk-upstream-test-key");
  });

  it("sends no AI Gateway headers to a plain OpenAI-compatible upstream", async () => {
    const { agent, challengeId } = await entrant();
    const m = marker();
    await callWith({}, challengeId, agent.token, {
      model: "model-a",
      messages: [{ role: "user", content: m }],
    });
    const [sent] = await receivedWith(m);
    expect(Object.keys(sent!.headers).filter((h) => h.startsWith("cf-aig"))).toEqual([]);
  });

  it("answers 502 for an upstream it cannot reach, and records the call without usage", async () => {
    const { agent, challengeId } = await entrant();
    const res = await callWith(
      { GATEWAY_UPSTREAM_URL: "http://127.0.0.1:9/v1" },
      challengeId,
      agent.token,
      { model: "model-a", messages: [] },
    );
    expect((await expectProblem(res, 502)).type).toBe("urn:bouts:problem:upstream-unreachable");
    expect(await callsOf(agent.id)).toMatchObject([
      { model: "model-a", status: null, failure: "unreachable", tokensIn: null, tokensOut: null },
    ]);
  });
});

describe("readUsage", () => {
  it("takes non-negative safe integers, and nothing else", () => {
    expect(readUsage({ prompt_tokens: 0, completion_tokens: 12 })).toEqual({
      tokensIn: 0,
      tokensOut: 12,
    });
    for (const bad of [
      { prompt_tokens: "10", completion_tokens: 2 },
      { prompt_tokens: 10, completion_tokens: -2 },
      { prompt_tokens: 10.5, completion_tokens: 2 },
      { prompt_tokens: 1e300, completion_tokens: 2 },
      { prompt_tokens: Number.MAX_SAFE_INTEGER + 1, completion_tokens: 2 },
      { prompt_tokens: 10 },
      { prompt_tokens: null, completion_tokens: null },
      [],
      "12",
      null,
    ])
      expect(readUsage(bad), JSON.stringify(bad)).toBe(null);
  });
});

describe("the stream tap", () => {
  const events = [
    { model: "m-1", choices: [{ delta: { content: "hi" } }], usage: null },
    { model: "m-2", choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } },
  ];
  const sse = `${events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join("")}data: [DONE]\r\n\r\n`;

  async function tap(chunks: Uint8Array[]) {
    const t = createUsageTap();
    const out = new Response(t.readable).arrayBuffer();
    const writer = t.writable.getWriter();
    for (const c of chunks) await writer.write(c);
    await writer.close();
    return { bytes: new Uint8Array(await out), seen: t.seen() };
  }

  it("passes bytes through unchanged and reads the first model and the final usage, split anywhere", async () => {
    const bytes = new TextEncoder().encode(sse);
    for (const size of [1, 3, 17, bytes.length]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.slice(at, at + size));
      const { bytes: out, seen } = await tap(chunks);
      expect(out).toEqual(bytes);
      expect(seen, `chunks of ${size}`).toEqual({
        model: "m-1",
        usage: { tokensIn: 7, tokensOut: 3 },
      });
    }
  });

  it("skips a line longer than its bound and keeps reading after it", async () => {
    const long = `data: {"model":"${"x".repeat(MAX_SSE_LINE)}"}\n\n`;
    const { seen } = await tap([new TextEncoder().encode(long), new TextEncoder().encode(sse)]);
    expect(seen).toEqual({ model: "m-1", usage: { tokensIn: 7, tokensOut: 3 } });
  });

  it("reads a final usage that is not well-typed as none", async () => {
    const bad = `data: ${JSON.stringify({ model: "m", usage: { prompt_tokens: "7", completion_tokens: 3 } })}\n\n`;
    const { seen } = await tap([new TextEncoder().encode(bad)]);
    expect(seen).toEqual({ model: "m", usage: null });
  });
});
