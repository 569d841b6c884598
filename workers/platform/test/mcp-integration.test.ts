/**
 * The MCP endpoint through the SDK's own client, in workerd: the tool list with schemas,
 * the tools answering exactly what the HTTP routes answer the same key, a malformed tool
 * call, a wrong key and an operator's key, transport refusals as problem+json, a submission
 * refused by the upload validator, and hostile calls: one agent cannot read or change another
 * agent's submissions or webhooks through a tool.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { seedChallenge } from "../../leaderboard/test/helpers.ts";
import {
  callTool,
  connectMcp,
  MCP_URL,
  problemOf,
  workerFetch,
} from "../../score/test/mcp-client.ts";

const ORIGIN = "http://platform.test";

let seeded: Awaited<ReturnType<typeof seedChallenge>>;
beforeAll(async () => {
  seeded = await seedChallenge({ agents: 2, slug: `mcp-${crypto.randomUUID().slice(0, 8)}` });
});

const api = (path: string, token: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }));
};

const TOOLS = [
  "list_challenges",
  "get_challenge",
  "enter_challenge",
  "submit_solution",
  "get_submission",
  "wait_for_submission",
  "get_breakdown",
  "get_leaderboard",
  "get_my_standing",
  "get_final_choices",
  "choose_final_submissions",
  "list_webhooks",
  "register_webhook",
  "delete_webhook",
  "rotate_webhook_secret",
  "test_webhook",
];

// The first call builds the server and its schemas cold; a loaded machine needs more than 5 s.
describe("the MCP endpoint", { timeout: 30_000 }, () => {
  it("lists every tool, each with an input and an output schema", async () => {
    const client = await connectMcp(seeded.agents[0]!.token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe("object");
      expect(t.outputSchema?.type, t.name).toBe("object");
      expect(t.description?.length, t.name).toBeGreaterThan(10);
    }
    const submit = tools.find((t) => t.name === "submit_solution")!;
    expect(submit.inputSchema.required).toEqual(expect.arrayContaining(["challenge", "files"]));
    await client.close();
  });

  it("answers get_challenge with the same keyed view as GET /v1/challenges/{id}", async () => {
    const token = seeded.agents[0]!.token;
    const client = await connectMcp(token);
    const viaTool = await callTool(client, "get_challenge", { challenge: seeded.challengeId });
    const viaHttp = await (await api(`/v1/challenges/${seeded.challengeId}`, token)).json();
    expect(viaTool.isError).toBeFalsy();
    expect(viaTool.structuredContent).toEqual(viaHttp);
    expect(viaTool.structuredContent).toHaveProperty("deliverables");
    expect(viaTool.structuredContent).toHaveProperty("interface");
    await client.close();
  });

  it("refuses a malformed tool call with an input validation error, running nothing", async () => {
    const client = await connectMcp(seeded.agents[0]!.token);
    const bad = await callTool(client, "get_challenge", { challenge: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/Input validation error/);
    const missing = await callTool(client, "submit_solution", { challenge: seeded.challengeId });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]?.text).toMatch(/files/);
    const unknown = await callTool(client, "drop_tables", {});
    expect(unknown.isError).toBe(true);
    await client.close();
  });

  it("maps a route's refusal to a tool error carrying its problem document", async () => {
    const client = await connectMcp(seeded.agents[0]!.token);
    const answer = await callTool(client, "get_challenge", { challenge: "no-such-challenge" });
    expect(answer.isError).toBe(true);
    expect(problemOf(answer).status).toBe(404);
    expect(answer.content[0]?.text).toMatch(/^404 Not found/);
    await client.close();
  });

  it("refuses a wrong key with 401 problem+json before any MCP message is read", async () => {
    await expect(connectMcp("bouts_000000000000000000000000_wrong")).rejects.toThrow(/401/);
    const res = await workerFetch(MCP_URL, {
      method: "POST",
      headers: {
        Authorization: "Bearer bouts_000000000000000000000000_wrong",
        Accept: "application/json, text/event-stream",
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(res.headers.get("WWW-Authenticate")).toContain("Bearer");
    const none = await workerFetch(MCP_URL, { method: "POST", body: "{}" });
    expect(none.status).toBe(401);
  });

  it("refuses an operator's key (403): the tools act as an agent", async () => {
    await expect(connectMcp(seeded.operatorToken)).rejects.toThrow(/403/);
  });

  it("answers transport refusals as problem+json, and GET/DELETE with 405 Allow: POST", async () => {
    const token = seeded.agents[0]!.token;
    const notAcceptable = await api("/mcp", token, {
      method: "POST",
      headers: { Accept: "text/html", "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.headers.get("Content-Type")).toBe("application/problem+json");
    const post = (body: string) =>
      api("/mcp", token, {
        method: "POST",
        headers: {
          Accept: "application/json, text/event-stream",
          "Content-Type": "application/json",
        },
        body,
      });
    const junk = await post("{not json");
    expect(junk.status).toBe(400);
    expect(junk.headers.get("Content-Type")).toBe("application/problem+json");
    // A number id past 2^53 is refused as the document says (its bounds), before the SDK.
    const unsafeId = await post('[{"jsonrpc":"2.0","id":-9007199254740992,"method":"tools/list"}]');
    expect(unsafeId.status).toBe(400);
    expect(unsafeId.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await unsafeId.json<{ detail: string }>()).detail).toContain("0.id");
    const safeId = await post(
      JSON.stringify({ jsonrpc: "2.0", id: Number.MIN_SAFE_INTEGER, method: "tools/list" }),
    );
    expect(safeId.status).toBe(200);
    const document = await (
      await exports.default.fetch(`${ORIGIN}/openapi.json`)
    ).json<{
      components: { schemas: { McpMessage: { properties: { id: { anyOf: object[] } } } } };
    }>();
    expect(document.components.schemas.McpMessage.properties.id.anyOf).toContainEqual({
      type: "integer",
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    for (const method of ["GET", "DELETE"]) {
      const res = await api("/mcp", token, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("Allow"), method).toBe("POST");
    }
  });

  it("validates submitted files exactly like an upload: an escaping path is refused", async () => {
    const client = await connectMcp(seeded.agents[0]!.token);
    const answer = await callTool(client, "submit_solution", {
      challenge: seeded.challengeId,
      files: { "../escape.mjs": "export const x = 1;\n" },
    });
    expect(answer.isError).toBe(true);
    const problem = problemOf(answer);
    expect(problem.status).toBe(422);
    expect(problem.detail).toMatch(/escape\.mjs/);
    await client.close();
  });

  it("does not let one agent read another's submission or change its webhooks", async () => {
    const alice = seeded.agents[0]!;
    const mallory = seeded.agents[1]!;
    const a = await connectMcp(alice.token);
    const m = await connectMcp(mallory.token);
    const hook = await callTool(a, "register_webhook", {
      url: "https://hooks.example.org/bouts",
      eventTypes: ["submission.scored"],
    });
    expect(hook.isError, JSON.stringify(hook.content)).toBeFalsy();
    const id = hook.structuredContent!.id as string;
    for (const tool of ["delete_webhook", "rotate_webhook_secret", "test_webhook"]) {
      const answer = await callTool(m, tool, { id });
      expect(answer.isError, tool).toBe(true);
      expect(problemOf(answer).status, tool).toBe(404);
    }
    const listed = await callTool(m, "list_webhooks", {});
    expect(listed.structuredContent).toEqual({ endpoints: [] });
    const still = await callTool(a, "list_webhooks", {});
    expect((still.structuredContent!.endpoints as { id: string }[]).map((e) => e.id)).toEqual([id]);
    // A submission id of another agent looks exactly like a missing one.
    const sub = await callTool(m, "get_submission", { submission: crypto.randomUUID() });
    expect(problemOf(sub).status).toBe(404);
    await a.close();
    await m.close();
  });

  it("reads and changes final choices through the route's own function, with its refusals", async () => {
    const alice = seeded.agents[0]!;
    const client = await connectMcp(alice.token);
    const read = await callTool(client, "get_final_choices", { challenge: seeded.challengeId });
    expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
    expect(read.structuredContent).toMatchObject({
      submissionIds: [],
      limit: 2,
      fallback: "latest",
    });
    // Hostile: a submission that is not the agent's is refused like a missing one (404, as for
    // every id the caller does not own).
    const refused = await callTool(client, "choose_final_submissions", {
      challenge: seeded.challengeId,
      submissionIds: [crypto.randomUUID()],
    });
    expect(refused.isError).toBe(true);
    expect(problemOf(refused).status).toBe(404);
    expect(problemOf(refused).detail).toMatch(/submission/i);
    const cleared = await callTool(client, "choose_final_submissions", {
      challenge: seeded.challengeId,
      submissionIds: [],
    });
    expect(cleared.structuredContent).toMatchObject({ submissionIds: [] });
    await client.close();
  });
});
