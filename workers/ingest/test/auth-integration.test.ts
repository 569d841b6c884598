import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { NOT_BLANK } from "@bouts/contracts";
import { createDb, revokeApiKey } from "@bouts/db";
import { call, callJson, createAgent, expectProblem, seedOperator } from "./helpers.ts";

/** The secret part of `bouts_<24 hex id>_<43 chars>` (the secret itself may contain "_"). */
const secretOf = (token: string) => token.slice(31);

describe("authentication", () => {
  it("serves health, the OpenAPI document and the docs without a key", async () => {
    expect((await call("/healthz")).status).toBe(200);
    expect((await call("/openapi.json")).status).toBe(200);
    expect((await call("/docs")).status).toBe(200);
  });

  it("answers 401 problem+json without a key", async () => {
    // (An anonymous GET /v1/challenges is the public listing, served by the leaderboard role.)
    const res = await call("/v1/agents");
    const body = await expectProblem(res, 401);
    expect(res.headers.get("WWW-Authenticate")).toContain("Bearer");
    expect(body.detail).toMatch(/API key/);
  });

  it.each([
    ["a malformed key", "not-a-key"],
    ["an unknown key id", `bouts_${"a".repeat(24)}_${"b".repeat(43)}`],
  ])("answers 401 for %s", async (_label, token) => {
    await expectProblem(await call("/v1/challenges", { token }), 401);
  });

  it("answers 401 for a known key id with the wrong secret", async () => {
    const op = await seedOperator();
    const forged = `${op.token.slice(0, 31)}${"x".repeat(43)}`;
    expect(forged).not.toBe(op.token);
    await expectProblem(await call("/v1/challenges", { token: forged }), 401);
  });

  it("answers 401 for a non-bearer scheme", async () => {
    const op = await seedOperator();
    const res = await call("/v1/challenges", { headers: { Authorization: `Basic ${op.token}` } });
    await expectProblem(res, 401);
  });

  it("answers 401 once a key is revoked", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    expect((await call("/v1/challenges", { token: agent.token })).status).toBe(200);
    const res = await call(`/v1/keys/${agent.keyId}`, { method: "DELETE", token: op.token });
    expect(res.status).toBe(200);
    expect((await res.json<{ revokedAt: string | null }>()).revokedAt).not.toBeNull();
    await expectProblem(await call("/v1/challenges", { token: agent.token }), 401);
  });

  it("rate-limits requests per operator with 429 and Retry-After", async () => {
    const op = await seedOperator();
    const limit = vi.spyOn(env.API_RATE_LIMIT, "limit").mockResolvedValue({ success: false });
    try {
      const res = await call("/v1/challenges", { token: op.token });
      await expectProblem(res, 429);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(limit).toHaveBeenCalledWith({ key: `operator:${op.id}` });
    } finally {
      limit.mockRestore();
    }
  });

  it("counts every key of an agent against one request rate limit", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const issued = await callJson(`/v1/agents/${agent.id}/keys`, "POST", {}, op.token);
    const second = (await issued.json<{ key: { key: string } }>()).key.key;
    // A limiter that allows one request per rate-limit key.
    const seen = new Map<string, number>();
    const limit = vi.spyOn(env.API_RATE_LIMIT, "limit").mockImplementation(({ key }) => {
      seen.set(key, (seen.get(key) ?? 0) + 1);
      return Promise.resolve({ success: (seen.get(key) ?? 0) <= 1 });
    });
    try {
      expect((await call("/v1/challenges", { token: agent.token })).status).toBe(200);
      const res = await call("/v1/challenges", { token: second });
      expect((await expectProblem(res, 429)).detail).toMatch(/all of its keys share one limit/);
      expect([...seen.keys()]).toEqual([`agent:${agent.id}`]);
    } finally {
      limit.mockRestore();
    }
  });
});

describe("authorization", () => {
  it("refuses operator routes to an agent key with 403", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    for (const [path, method, body] of [
      ["/v1/agents", "POST", { name: "x" }],
      ["/v1/agents", "GET", undefined],
      [
        "/v1/challenges",
        "POST",
        { slug: "abc", title: "t", profile: "engineering", maxIterations: 1 },
      ],
      [`/v1/agents/${agent.id}/keys`, "POST", {}],
      [`/v1/keys/${agent.keyId}`, "DELETE", undefined],
    ] as const) {
      const res =
        body === undefined
          ? await call(path, { method, token: agent.token })
          : await callJson(path, method, body, agent.token);
      await expectProblem(res, 403);
    }
  });

  it("refuses agent routes to an operator key with 403", async () => {
    const op = await seedOperator();
    await expectProblem(await call("/v1/submissions/x", { token: op.token }), 403);
  });

  it("hides another operator's agents and keys as 404", async () => {
    const a = await seedOperator("a");
    const b = await seedOperator("b");
    const agent = await createAgent(a.token);
    await expectProblem(await call(`/v1/agents/${agent.id}/keys`, { token: b.token }), 404);
    await expectProblem(
      await call(`/v1/keys/${agent.keyId}`, { method: "DELETE", token: b.token }),
      404,
    );
    const list = await call("/v1/agents", { token: b.token });
    expect((await list.json<{ agents: unknown[] }>()).agents).toEqual([]);
  });
});

describe("keys", () => {
  it("answers both key-creating routes with one shape, documented by one schema", async () => {
    const op = await seedOperator();
    const registered = await callJson("/v1/agents", "POST", { name: "shape" }, op.token);
    const first = await registered.json<Record<string, Record<string, unknown>>>();
    const agentId = String(first.agent?.id);
    const issued = await callJson(`/v1/agents/${agentId}/keys`, "POST", {}, op.token);
    const second = await issued.json<Record<string, Record<string, unknown>>>();
    const shape = (v: Record<string, Record<string, unknown>>) =>
      Object.fromEntries(Object.entries(v).map(([k, o]) => [k, Object.keys(o).sort()]));
    expect(shape(second)).toEqual(shape(first));
    expect(second.agent).toEqual(first.agent);
    expect(second.key?.key).not.toBe(first.key?.key);
    const doc = await (
      await call("/openapi.json")
    ).json<{
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>();
    const schemaOf = (route: string) => JSON.stringify(doc.paths[route]?.post?.responses["201"]);
    expect(schemaOf("/v1/agents/{id}/keys")).toContain("#/components/schemas/AgentKey");
    expect(schemaOf("/v1/agents")).toContain("#/components/schemas/AgentKey");
  });

  it("shows a new key once and lists keys without secrets or hashes", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const issued = await callJson(`/v1/agents/${agent.id}/keys`, "POST", { label: "ci" }, op.token);
    expect(issued.status).toBe(201);
    const body = await issued.json<{
      agent: { id: string };
      key: { id: string; key: string; label: string };
    }>();
    const key = body.key;
    expect(body.agent.id).toBe(agent.id);
    expect(key.label).toBe("ci");
    expect((await call("/v1/challenges", { token: key.key })).status).toBe(200);
    const list = await call(`/v1/agents/${agent.id}/keys`, { token: op.token });
    const text = await list.text();
    expect(text).not.toContain(secretOf(key.key));
    expect(text).not.toContain("secretHash");
    expect((JSON.parse(text) as { keys: unknown[] }).keys).toHaveLength(2);
  });

  it("stores only a hash of the secret", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const secret = secretOf(agent.token);
    expect(secret).toHaveLength(43);
    const rows = await env.DB.prepare("SELECT * FROM api_keys").all();
    expect(JSON.stringify(rows.results)).not.toContain(secret);
  });

  it("answers 409 when revoking a key twice", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    await revokeApiKey(createDb(env.DB), agent.keyId, Date.now());
    await expectProblem(
      await call(`/v1/keys/${agent.keyId}`, { method: "DELETE", token: op.token }),
      409,
    );
  });

  it("refuses an agent registration with unknown fields", async () => {
    const op = await seedOperator();
    const res = await callJson(
      "/v1/agents",
      "POST",
      { name: "x", operatorId: "someone" },
      op.token,
    );
    const body = await expectProblem(res, 400);
    expect(JSON.stringify(body.errors)).toContain("operatorId");
  });

  it("answers malformed JSON with 400, not 500", async () => {
    const op = await seedOperator();
    const res = await call("/v1/agents", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json",
      token: op.token,
    });
    await expectProblem(res, 400);
  });
});

describe("free text that must say something", () => {
  it("refuses a name, a key label and a title of white space alone, as the document says", async () => {
    const op = await seedOperator();
    const blank = "\f\u3000";
    const refused = async (path: string, method: string, body: unknown) => {
      const problem = await expectProblem(await callJson(path, method, body, op.token), 400);
      expect(problem.detail, path).toContain("must hold a character other than white space");
    };
    await refused("/v1/agents", "POST", { name: blank });
    const agent = await createAgent(op.token);
    await refused(`/v1/agents/${agent.id}/keys`, "POST", { label: blank });
    await refused("/v1/challenges", "POST", {
      slug: "blank",
      title: blank,
      profile: "engineering",
    });
    const created = await callJson(
      "/v1/challenges",
      "POST",
      { slug: "blank", title: "  Blank?  ", profile: "engineering", maxIterations: 1 },
      op.token,
    );
    expect(created.status).toBe(201);
    const challenge = await created.json<{ id: string; title: string }>();
    expect(challenge.title).toBe("Blank?");
    await refused(`/v1/challenges/${challenge.id}`, "PATCH", { title: blank });

    // The document states the rule each of these fields is checked by.
    const doc = await (
      await call("/openapi.json")
    ).json<{
      components: { schemas: Record<string, { properties: Record<string, { pattern?: string }> }> };
    }>();
    const { schemas } = doc.components;
    for (const [schema, field] of [
      ["CreateAgentBody", "name"],
      ["IssueKeyBody", "label"],
      ["UpdateChallengeBody", "title"],
    ] as const)
      expect(schemas[schema]?.properties[field]?.pattern, schema).toBe(NOT_BLANK.source);
  });
});
