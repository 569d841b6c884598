/**
 * The API contract as Schemathesis checks it (`--checks all`), black-box through the platform
 * Worker's fetch: the one OpenAPI document, every answer's status declared for its operation
 * with the problem schema, authentication declared exactly where it is enforced, 405 with
 * `Allow` for a wrong method on a known path, and documented schemas the answers satisfy.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { seedChallenge } from "../../leaderboard/test/helpers.ts";

const ORIGIN = "http://platform.test";
const PROBLEM = "application/problem+json";

type Schema = Record<string, unknown>;
type Operation = {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

function call(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }));
}

let doc: Doc;
let seeded: Awaited<ReturnType<typeof seedChallenge>>;
let agentToken: string;
beforeAll(async () => {
  doc = await (await call("/openapi.json")).json<Doc>();
  seeded = await seedChallenge({ agents: 1 });
  agentToken = seeded.agents[0]!.token;
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  );

/** A concrete path for a documented one: every parameter filled with `value`. */
const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);

/** A schema with every `$ref` to a component inlined, for `z.fromJSONSchema`. */
function inline(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inline);
  if (!schema || typeof schema !== "object") return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref) return inline(doc.components.schemas[ref.replace("#/components/schemas/", "")]);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v)]));
}

/** The documented schema of an operation's answer with `status`. */
function responseSchema(method: string, path: string, status: number) {
  const content = doc.paths[path]?.[method]?.responses[String(status)]?.content;
  const media = content?.["application/json"] ?? content?.[PROBLEM];
  expect(media, `${method} ${path} ${status}`).toBeDefined();
  return z.fromJSONSchema(inline(media!.schema) as Parameters<typeof z.fromJSONSchema>[0]);
}

describe("the document", () => {
  it("declares, for every operation, the statuses its access, parameters and body can answer", () => {
    for (const { path, method, op } of operations()) {
      const label = `${method} ${path}`;
      const declared = Object.keys(op.responses);
      const security = op.security ?? [];
      const optional = security.some((s) => Object.keys(s).length === 0);
      const expected = new Set<string>(["429"]);
      if (security.length > 0) expected.add("401");
      if (security.length > 0 && !optional) expected.add("403");
      if ((op.parameters ?? []).length > 0) expected.add("400");
      if (op.requestBody?.content["application/json"])
        ["400", "415"].forEach((s) => expected.add(s));
      for (const status of expected) expect(declared, label).toContain(status);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.[PROBLEM]?.schema, `${label} ${status}`).toEqual({
          $ref: "#/components/schemas/Problem",
        });
      }
    }
  });

  it("declares the public reads as public and the challenge reads' key as optional", () => {
    for (const path of [
      "/v1/challenges/{id}/leaderboard",
      "/v1/challenges/{id}/agents/{agentId}",
      "/v1/challenges/{id}/leaderboard/ws",
    ]) {
      expect(doc.paths[path]?.get?.security ?? [], path).toEqual([]);
    }
    for (const path of [
      "/v1/challenges",
      "/v1/challenges/{id}",
      "/v1/submissions/{id}/breakdown",
    ]) {
      expect(doc.paths[path]?.get?.security, path).toEqual([
        {},
        { agentKey: [] },
        { operatorKey: [] },
      ]);
    }
  });

  it("documents the bundle upload as binary gzip", () => {
    const body = doc.paths["/v1/challenges/{id}/bundle"]?.put?.requestBody;
    expect(body?.content["application/gzip"]?.schema).toMatchObject({
      type: "string",
      format: "binary",
      contentMediaType: "application/gzip",
    });
  });
});

describe("authentication", () => {
  it("answers 401 problem+json without a key on every operation that declares one required", async () => {
    for (const { path, method, op } of operations()) {
      const security = op.security ?? [];
      if (security.length === 0 || security.some((s) => Object.keys(s).length === 0)) continue;
      const res = await call(fill(path, "x"), { method: method.toUpperCase() });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get("Content-Type")).toBe(PROBLEM);
      expect(res.headers.get("WWW-Authenticate")).toContain("Bearer");
    }
  });

  it("answers the public and optional-key reads without a key", async () => {
    const { challengeId } = seeded;
    for (const path of [
      "/v1/challenges",
      `/v1/challenges/${challengeId}`,
      `/v1/challenges/${challengeId}/leaderboard`,
    ]) {
      expect((await call(path)).status, path).toBe(200);
    }
  });
});

describe("every answer is declared", () => {
  it("for junk and valid ids, with no key, an agent key and an operator key", async () => {
    const keys = [undefined, agentToken, seeded.operatorToken];
    const bodies: (RequestInit | null)[] = [
      null,
      { body: "{}", headers: { "Content-Type": "application/json" } },
      { body: "{", headers: { "Content-Type": "application/json" } },
      { body: "x", headers: { "Content-Type": "text/plain" } },
    ];
    for (const { path, method, op } of operations()) {
      if (path.endsWith("/ws")) continue;
      const declared = Object.keys(op.responses);
      for (const id of ["x", "!bad", seeded.challengeId]) {
        for (const token of keys) {
          for (const body of op.requestBody ? bodies : [null]) {
            const res = await call(fill(path, id), {
              method: method.toUpperCase(),
              ...(body ?? {}),
              ...(token ? { token } : {}),
            });
            const label = `${method} ${fill(path, id)} ${token ? "keyed" : "anonymous"} ${JSON.stringify(body)}`;
            expect(declared, label).toContain(String(res.status));
            if (res.status >= 400) expect(res.headers.get("Content-Type"), label).toBe(PROBLEM);
            await res.body?.cancel();
          }
        }
      }
    }
    // About 600 requests in turn: seconds on an idle machine, more on a loaded one.
  }, 60_000);
});

describe("a wrong method on a known path", () => {
  it("is 405 problem+json with Allow listing the path's methods", async () => {
    const res = await call("/v1/challenges", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Content-Type")).toBe(PROBLEM);
    expect(res.headers.get("Allow")).toBe("GET, HEAD, POST, OPTIONS");
    expect(await res.json()).toMatchObject({
      status: 405,
      type: "urn:bouts:problem:method-not-allowed",
    });
  });

  it("is 405 with every documented method in Allow, on every documented path", async () => {
    const methods = ["get", "put", "post", "delete", "patch"];
    for (const [path, ops] of Object.entries(doc.paths)) {
      const documented = Object.keys(ops);
      const wrong = methods.find((m) => !documented.includes(m))!;
      const res = await call(fill(path, "x"), { method: wrong.toUpperCase(), token: agentToken });
      expect(res.status, `${wrong} ${path}`).toBe(405);
      const allow = (res.headers.get("Allow") ?? "").toLowerCase().split(", ");
      expect(allow, path).toEqual(expect.arrayContaining(documented));
      const extra = allow.filter((m) => !documented.includes(m) && m !== "head" && m !== "options");
      expect(extra, path).toEqual([]);
    }
  });

  // A GET with a body cannot be built here (e2e/unattended.test.ts sends one over a socket).
  it("is 405, never 500, when a DELETE carries a body (as Schemathesis sends one)", async () => {
    const res = await call("/mcp", {
      method: "DELETE",
      token: agentToken,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "0", params: {} }),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST");
  });

  it("stays 404 for a path no route has", async () => {
    const res = await call("/v1/nothing-here", { method: "DELETE" });
    expect(res.status).toBe(404);
    expect(res.headers.get("Allow")).toBeNull();
  });
});

describe("the challenge reads", () => {
  it("answer the public view without a key, as documented, without the keyed fields", async () => {
    const { challengeId } = seeded;
    const one = await call(`/v1/challenges/${challengeId}`);
    const view = await one.json<Record<string, unknown>>();
    expect(responseSchema("get", "/v1/challenges/{id}", 200).safeParse(view).success).toBe(true);
    expect(view).not.toHaveProperty("customWeights");
    expect(view).toHaveProperty("links");
    expect(one.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const list = await (await call("/v1/challenges")).json();
    expect(responseSchema("get", "/v1/challenges", 200).safeParse(list).success).toBe(true);
  });

  it("answer the keyed view with a key, as documented", async () => {
    const { challengeId, operatorToken } = seeded;
    for (const token of [agentToken, operatorToken]) {
      const one = await call(`/v1/challenges/${challengeId}`, { token });
      const view = await one.json<Record<string, unknown>>();
      expect(responseSchema("get", "/v1/challenges/{id}", 200).safeParse(view).success).toBe(true);
      expect(view).toHaveProperty("customWeights");
      expect(one.headers.get("Access-Control-Allow-Origin")).toBeNull();
      const list = await (await call("/v1/challenges", { token })).json();
      expect(responseSchema("get", "/v1/challenges", 200).safeParse(list).success).toBe(true);
    }
  });

  it("refuse a key that does not verify instead of serving the public view", async () => {
    const res = await call("/v1/challenges", { headers: { Authorization: "Bearer nonsense" } });
    expect(res.status).toBe(401);
  });
});

describe("webhook targets", () => {
  it("document the target rules, names that are never public included, and refuse them with a documented 422", async () => {
    const url = (doc.components.schemas.RegisterWebhookBody as { properties: { url: Schema } })
      .properties.url;
    expect(url).toMatchObject({ type: "string", format: "uri", maxLength: 2048 });
    const pattern = new RegExp(url.pattern as string);
    expect(pattern.test("https://hooks.example.org/bouts?x=1")).toBe(true);
    for (const bad of ["http://hooks.example.org/", "https://10.0.0.1/", "https://a.b:8443/"]) {
      expect(pattern.test(bad), bad).toBe(false);
    }
    // Names that are never public (a metadata service, special-use top-level names) are outside
    // the pattern too, so a URL the document calls valid is never refused (Schemathesis found
    // `.example` and the metadata host inside it); the refusal is the documented 422.
    for (const [target, rule] of [
      ["https://metadata.google.internal/computeMetadata", "metadata"],
      ["https://metadata.goog/", "metadata"],
      ["https://kdq43gou.example", "special-use-name"],
      ["https://router.lan:443/x", "special-use-name"],
      ["https://a.localhost/", "loopback"],
      [
        `https://${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.org/`,
        "invalid-hostname",
      ],
    ] as const) {
      expect(pattern.test(target), target).toBe(false);
      const res = await call("/v1/webhooks", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ url: target, eventTypes: ["submission.scored"] }),
        token: agentToken,
      });
      expect(res.status, target).toBe(422);
      expect(await res.json()).toMatchObject({
        type: "urn:bouts:problem:invalid-target",
        rule,
      });
    }
    expect(pattern.test("https://example.org/hook")).toBe(true);
    expect(pattern.test("https://hooks.examples.dev/")).toBe(true);
    expect(Object.keys(doc.paths["/v1/webhooks"]!.post!.responses)).toContain("422");
  });

  it("refuse, as input, a target that is not a URI in the document's sense (found by Schemathesis)", async () => {
    const url = (doc.components.schemas.RegisterWebhookBody as { properties: { url: Schema } })
      .properties.url;
    const pattern = new RegExp(url.pattern as string);
    // The WHATWG parser accepts (and escapes) these; RFC 3986 does not allow them.
    for (const target of [
      "https://qid.example.org/?|0Z8NgX",
      "https://hooks.example.org/a%zz",
      'https://hooks.example.org/"x"',
      "https://hooks.example.org/{id}",
      "https://hooks.example.org/Q%40W[kD",
      "https://hooks.example.org/#a#b",
      "https://hooks.example.org/?q=a#b#c",
    ]) {
      expect(pattern.test(target), target).toBe(false);
      const res = await call("/v1/webhooks", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ url: target, eventTypes: ["submission.scored"] }),
        token: agentToken,
      });
      expect(res.status, target).toBe(400);
      expect(await res.json()).toMatchObject({ type: "urn:bouts:problem:validation" });
    }
    expect(pattern.test("https://hooks.example.org/x%20y?q=1&r=a,b")).toBe(true);
  });
});
