/**
 * The metering gateway through the platform Worker's fetch, against the local fake model on
 * loopback: a call is forwarded with the platform's key and recorded with the upstream's usage;
 * only an agent entered in an open challenge may call; hostile bodies are refused before anything
 * is forwarded; an upstream's untyped usage is recorded as none; a hanging, cut or oversize
 * upstream is answered and still recorded; streams pass through and are recorded at their end.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createDb, sumGatewayUsage } from "@bouts/db";
import { parseApiKey } from "@bouts/db/keys";
import { computeFakeUsage, FAKE_MODEL_BEHAVIOURS } from "@bouts/fixtures";
import {
  call,
  callsOf,
  chat,
  completions,
  enter,
  expectProblem,
  marker,
  operatorToken,
  receivedWith,
  seedWorld,
} from "./helpers.ts";

const ONE_MIB = 1024 * 1024;

/** An entered agent on an open challenge, and a message unique to the test. */
async function entrant() {
  const world = await seedWorld();
  const agent = world.agents[0]!;
  const challengeId = world.challenges[0]!;
  await enter(agent, challengeId);
  const m = marker();
  const messages = [{ role: "user", content: `fix it ${m}` }];
  return { ...world, agent, challengeId, m, messages };
}

describe("a model call through the gateway", () => {
  it("is forwarded with the platform's key, answered unchanged and recorded with its usage", async () => {
    const { agent, challengeId, m, messages } = await entrant();
    const body = { model: "model-a", messages, max_tokens: 40, temperature: 0 };
    const res = await chat(challengeId, agent.token, body);
    expect(res.status).toBe(200);
    const answer = await res.json<{ model: string; usage: unknown }>();
    const usage = computeFakeUsage(body);
    expect(answer).toMatchObject({ model: "model-a", usage });

    const [sent] = await receivedWith(m);
    // Every other field reaches the upstream unchanged, byte for byte.
    expect(sent!.body).toBe(JSON.stringify(body));
    expect(sent!.headers["authorization"]).toBe("Bearer sk-upstream-test-key");

    const [row] = await callsOf(agent.id);
    expect(row).toMatchObject({
      challengeId,
      model: "model-a",
      tokensIn: usage.prompt_tokens,
      tokensOut: usage.completion_tokens,
      status: 200,
      failure: null,
      streamed: false,
      requestBytes: JSON.stringify(body).length,
    });
    expect(row!.finishedAt).toBeGreaterThanOrEqual(row!.startedAt);
  });

  it("never sends the agent's Bouts key, or any header of the agent's, to the upstream", async () => {
    const { agent, challengeId, m, messages } = await entrant();
    const res = await call(completions(challengeId), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Api-Key": agent.token,
        Cookie: `session=${agent.token}`,
        "OpenAI-Organization": "org-agent",
      },
      body: JSON.stringify({ model: "model-a", messages }),
      token: agent.token,
    });
    expect(res.status).toBe(200);
    const [sent] = await receivedWith(m);
    // The whole secret (base64url, so it may hold "_"), never a piece of it: a one-letter piece
    // would be found in any header.
    const { secret } = parseApiKey(agent.token)!;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    for (const [name, value] of Object.entries(sent!.headers)) {
      expect(value, name).not.toContain(secret);
      expect(name).not.toMatch(/^(x-api-key|cookie|openai-organization)$/);
    }
    expect(sent!.body).not.toContain(secret);
  });

  it("records the model the answer names over the one the request asked for", async () => {
    const { agent, challengeId, messages } = await entrant();
    const res = await chat(challengeId, agent.token, {
      model: FAKE_MODEL_BEHAVIOURS.renamed,
      messages,
    });
    expect(res.status).toBe(200);
    expect((await callsOf(agent.id))[0]?.model).toBe(`${FAKE_MODEL_BEHAVIOURS.renamed}-2026-01-01`);
  });

  it("passes an upstream's refusal back with its status, and records it", async () => {
    const { agent, challengeId, messages } = await entrant();
    const res = await chat(challengeId, agent.token, {
      model: FAKE_MODEL_BEHAVIOURS.rateLimited,
      messages,
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(await res.json()).toMatchObject({ error: { type: "rate_limit_exceeded" } });
    expect(await callsOf(agent.id)).toMatchObject([
      { status: 429, failure: null, tokensIn: null, tokensOut: null },
    ]);
  });
});

describe("who may call", () => {
  it("refuses an agent that has not entered the challenge, though another agent has", async () => {
    const { challenges, agents } = await seedWorld({ agents: 2 });
    const [entered, outsider] = agents;
    await enter(entered!, challenges[0]!);
    const m = marker();
    const res = await chat(challenges[0]!, outsider!.token, {
      model: "model-a",
      messages: [{ role: "user", content: m }],
    });
    expect((await expectProblem(res, 403)).type).toBe("urn:bouts:problem:not-entered");
    expect(await receivedWith(m)).toEqual([]);
    expect(await callsOf(outsider!.id)).toEqual([]);
    expect(await callsOf(entered!.id)).toEqual([]);
  });

  it("records a call for the agent whose key made it, never for another entrant", async () => {
    const { challenges, agents } = await seedWorld({ agents: 2 });
    const [a, b] = agents;
    await enter(a!, challenges[0]!);
    await enter(b!, challenges[0]!);
    expect((await chat(challenges[0]!, b!.token, { model: "model-a", messages: [] })).status).toBe(
      200,
    );
    expect(await callsOf(a!.id)).toEqual([]);
    expect(await callsOf(b!.id)).toHaveLength(1);
  });

  it("answers 401 without a key, 403 to an operator key, 404 for a missing or draft challenge, 409 once closed", async () => {
    const { operatorId, challenges, agents } = await seedWorld({
      challenges: [
        {},
        { status: "draft", publishedAt: null },
        { status: "closed", closedAt: Date.now() },
        { closesAt: Date.now() - 1000 },
      ],
    });
    const [open, draft, closed, pastDeadline] = challenges;
    const agent = agents[0]!;
    for (const id of challenges) await enter(agent, id);
    const body = { model: "model-a", messages: [] };
    await expectProblem(await chat(open!, "", body), 401);
    await expectProblem(await chat(open!, await operatorToken(operatorId), body), 403);
    await expectProblem(await chat("no-such-challenge", agent.token, body), 404);
    await expectProblem(await chat(draft!, agent.token, body), 404);
    await expectProblem(await chat(closed!, agent.token, body), 409);
    await expectProblem(await chat(pastDeadline!, agent.token, body), 409);
    expect(await callsOf(agent.id)).toEqual([]);
  });
});

describe("hostile requests", () => {
  it("refuses a body over 1 MiB with 413, declared or streamed, and forwards nothing", async () => {
    const { agent, challengeId, m } = await entrant();
    const big = JSON.stringify({
      model: "model-a",
      messages: [{ role: "user", content: `${m}${"x".repeat(ONE_MIB)}` }],
    });
    await expectProblem(await chat(challengeId, agent.token, big), 413);
    // No Content-Length: the bound holds while reading.
    const bytes = new TextEncoder().encode(big);
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * 1024)
          controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    });
    const res = await call(completions(challengeId), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: streamed,
      token: agent.token,
    });
    await expectProblem(res, 413);
    expect(await receivedWith(m)).toEqual([]);
    expect(await callsOf(agent.id)).toEqual([]);
  });

  it("forwards a body of exactly 1 MiB", async () => {
    const { agent, challengeId } = await entrant();
    const head = JSON.stringify({ model: "model-a", messages: [{ role: "user", content: "" }] });
    const pad = ONE_MIB - head.length;
    const body = head.replace('"content":""', `"content":"${"y".repeat(pad)}"`);
    expect(new TextEncoder().encode(body).byteLength).toBe(ONE_MIB);
    expect((await chat(challengeId, agent.token, body)).status).toBe(200);
  });

  it("refuses what is not a chat completion in JSON: 415, then 400 naming the field", async () => {
    const { agent, challengeId } = await entrant();
    const text = await call(completions(challengeId), {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: '{"model":"model-a","messages":[]}',
      token: agent.token,
    });
    await expectProblem(text, 415);
    await expectProblem(await chat(challengeId, agent.token, "{"), 400);
    await expectProblem(await chat(challengeId, agent.token, "[]"), 400);
    const noModel = await expectProblem(
      await chat(challengeId, agent.token, { messages: [] }),
      400,
    );
    expect(noModel.detail).toContain("model");
    await expectProblem(await chat(challengeId, agent.token, { model: 7, messages: [] }), 400);
    await expectProblem(await chat(challengeId, agent.token, { model: "m", messages: {} }), 400);
    // A stream flag the gateway could misread is refused, not guessed.
    await expectProblem(
      await chat(challengeId, agent.token, { model: "m", messages: [], stream: "true" }),
      400,
    );
    expect(await callsOf(agent.id)).toEqual([]);
  });
});

describe("the upstream's usage", () => {
  for (const [name, model] of [
    ["strings", FAKE_MODEL_BEHAVIOURS.usageStrings],
    ["negative numbers", FAKE_MODEL_BEHAVIOURS.usageNegative],
    ["huge floats", FAKE_MODEL_BEHAVIOURS.usageFloats],
    ["missing", FAKE_MODEL_BEHAVIOURS.noUsage],
  ] as const) {
    it(`is recorded as no usage when its counts are ${name}, never coerced`, async () => {
      const { agent, challengeId, messages } = await entrant();
      const res = await chat(challengeId, agent.token, { model, messages });
      expect(res.status).toBe(200);
      const [row] = await callsOf(agent.id);
      expect(row).toMatchObject({ model, tokensIn: null, tokensOut: null, status: 200 });
      const observed = await sumGatewayUsage(createDb(env.DB), {
        agentId: agent.id,
        challengeId,
        from: null,
        to: Date.now(),
      });
      expect(observed).toMatchObject({ calls: 1, callsWithoutUsage: 1, tokensIn: 0, tokensOut: 0 });
    });
  }
});

describe("an upstream that fails", () => {
  it("answers 504 when the upstream hangs past the deadline, and records the call", async () => {
    const { agent, challengeId, messages } = await entrant();
    const res = await chat(challengeId, agent.token, {
      model: FAKE_MODEL_BEHAVIOURS.hang,
      messages,
    });
    expect((await expectProblem(res, 504)).type).toBe("urn:bouts:problem:upstream-timeout");
    expect(await callsOf(agent.id)).toMatchObject([
      { model: FAKE_MODEL_BEHAVIOURS.hang, status: null, failure: "timeout", tokensIn: null },
    ]);
  });

  it("answers 502 when the upstream cuts its answer off, and records the call", async () => {
    const { agent, challengeId, messages } = await entrant();
    const res = await chat(challengeId, agent.token, {
      model: FAKE_MODEL_BEHAVIOURS.cut,
      messages,
    });
    await expectProblem(res, 502);
    expect(await callsOf(agent.id)).toMatchObject([
      { status: 200, failure: "interrupted", tokensIn: null, tokensOut: null },
    ]);
  });

  it("answers 502 for an answer over the bound, and records the call", async () => {
    const { agent, challengeId, messages } = await entrant();
    const res = await chat(challengeId, agent.token, {
      model: FAKE_MODEL_BEHAVIOURS.oversize,
      messages,
    });
    expect((await expectProblem(res, 502)).type).toBe("urn:bouts:problem:upstream-oversize");
    expect(await callsOf(agent.id)).toMatchObject([{ failure: "oversize", tokensIn: null }]);
  });
});

describe("a streamed call", () => {
  it("passes the events through, asks for the final usage, and records it when the stream ends", async () => {
    const { agent, challengeId, m, messages } = await entrant();
    const body = {
      model: "model-a",
      messages,
      max_tokens: 5,
      stream: true,
      // An agent that turns the usage chunk off still gets it asked for.
      stream_options: { include_usage: false },
    };
    const res = await chat(challengeId, agent.token, body);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/event-stream");
    const text = await res.text();
    const events = text
      .split("\n\n")
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ""));
    expect(events.at(-1)).toBe("[DONE]");
    const usage = computeFakeUsage(body);
    expect(JSON.parse(events.at(-2)!)).toMatchObject({ choices: [], usage });
    const content = events
      .slice(0, -2)
      .map((e) => (JSON.parse(e) as { choices: { delta: { content?: string } }[] }).choices[0])
      .map((c) => c?.delta.content ?? "")
      .join("");
    expect(content.split(" ")).toHaveLength(5);

    const [sent] = await receivedWith(m);
    expect(JSON.parse(sent!.body)).toEqual({ ...body, stream_options: { include_usage: true } });
    await vi.waitFor(async () =>
      expect(await callsOf(agent.id)).toMatchObject([
        {
          model: "model-a",
          tokensIn: usage.prompt_tokens,
          tokensOut: usage.completion_tokens,
          status: 200,
          failure: null,
          streamed: true,
        },
      ]),
    );
  });

  it("records a stream cut mid-way as interrupted, without usage", async () => {
    const { agent, challengeId, messages } = await entrant();
    const res = await chat(challengeId, agent.token, {
      model: FAKE_MODEL_BEHAVIOURS.cut,
      messages,
      stream: true,
    });
    expect(res.status).toBe(200);
    // The client sees the stream break, not a clean end.
    await expect(res.text()).rejects.toThrow();
    await vi.waitFor(async () =>
      expect(await callsOf(agent.id)).toMatchObject([
        { streamed: true, status: 200, failure: "interrupted", tokensIn: null, tokensOut: null },
      ]),
    );
  });

  it("records a streamed call whose usage chunk is not well-typed as no usage", async () => {
    const { agent, challengeId, messages } = await entrant();
    const res = await chat(challengeId, agent.token, {
      model: FAKE_MODEL_BEHAVIOURS.usageFloats,
      messages,
      stream: true,
    });
    await res.text();
    await vi.waitFor(async () =>
      expect(await callsOf(agent.id)).toMatchObject([
        { streamed: true, failure: null, tokensIn: null, tokensOut: null },
      ]),
    );
  });
});

describe("an agent in two challenges", () => {
  it("has each call counted for the challenge it was made on, and nowhere else", async () => {
    const { challenges, agents } = await seedWorld({ challenges: [{}, {}], agents: 2 });
    const [one, two] = challenges;
    const [a, b] = agents;
    await enter(a!, one!);
    await enter(a!, two!);
    await enter(b!, one!);
    const small = { model: "model-a", messages: [{ role: "user", content: "a" }], max_tokens: 1 };
    const large = { model: "model-a", messages: [{ role: "user", content: "b" }], max_tokens: 900 };
    expect((await chat(one!, a!.token, small)).status).toBe(200);
    expect((await chat(one!, a!.token, small)).status).toBe(200);
    expect((await chat(two!, a!.token, large)).status).toBe(200);
    expect((await chat(one!, b!.token, large)).status).toBe(200);
    const db = createDb(env.DB);
    const sum = (agentId: string, challengeId: string) =>
      sumGatewayUsage(db, { agentId, challengeId, from: null, to: Date.now() });
    expect(await sum(a!.id, one!)).toMatchObject({ calls: 2, tokensOut: 2 });
    expect(await sum(a!.id, two!)).toMatchObject({ calls: 1, tokensOut: 900 });
    expect(await sum(b!.id, one!)).toMatchObject({ calls: 1, tokensOut: 900 });
    expect(await sum(b!.id, two!)).toBe(null);
  });
});
