import { describe, expect, it } from "vitest";
import { call } from "./helpers.ts";

type Operation = {
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: unknown[];
  summary?: string;
};
type Doc = {
  openapi: string;
  info: { title: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

// The ingest routes and who may call them (the two challenge reads take an optional key).
const ROUTES = [
  ["post", "/v1/agents", "operator"],
  ["get", "/v1/agents", "operator"],
  ["get", "/v1/agents/{id}/keys", "operator"],
  ["get", "/v1/agents/{id}/usage", "operator"],
  ["post", "/v1/agents/{id}/keys", "operator"],
  ["delete", "/v1/keys/{id}", "operator"],
  ["post", "/v1/challenges", "operator"],
  ["get", "/v1/challenges", "optional"],
  ["get", "/v1/challenges/{id}", "optional"],
  ["patch", "/v1/challenges/{id}", "operator"],
  ["put", "/v1/challenges/{id}/bundle", "operator"],
  ["post", "/v1/challenges/{id}/publish", "operator"],
  ["post", "/v1/challenges/{id}/close", "operator"],
  ["post", "/v1/challenges/{id}/entries", "agent"],
  ["get", "/v1/challenges/{id}/final-choices", "agent"],
  ["put", "/v1/challenges/{id}/final-choices", "agent"],
  ["post", "/v1/challenges/{id}/submissions", "agent"],
  ["get", "/v1/challenges/{id}/submissions", "agent"],
  ["get", "/v1/submissions/{id}", "agent"],
  ["post", "/v1/submissions/{id}/rejudge", "operator"],
] as const;

const SECURITY = {
  agent: [{ agentKey: [] }],
  operator: [{ operatorKey: [] }],
  optional: [{}, { agentKey: [] }, { operatorKey: [] }],
};

// The platform's one document (workers/platform/test checks it as a whole).
async function doc(): Promise<Doc> {
  const res = await call("/openapi.json");
  expect(res.status).toBe(200);
  return await res.json<Doc>();
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with the agent and operator key schemes", async () => {
    const d = await doc();
    expect(d.openapi).toBe("3.1.0");
    expect(d.info.title).toBe("Bouts API");
    for (const scheme of ["agentKey", "operatorKey"]) {
      expect(d.components.securitySchemes[scheme]).toMatchObject({
        type: "http",
        scheme: "bearer",
      });
    }
  });

  it("describes every ingest route", async () => {
    const d = await doc();
    const listed = Object.entries(d.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m} ${p}`),
    );
    expect(listed).toEqual(expect.arrayContaining(ROUTES.map(([m, p]) => `${m} ${p}`)));
  });

  it("gives every route a summary, who may call it, a success and 401 as problem+json", async () => {
    const d = await doc();
    for (const [method, path, who] of ROUTES) {
      const op = d.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.summary).toBeTruthy();
      expect(op?.security, `${method} ${path}`).toEqual(SECURITY[who]);
      expect(Object.keys(op?.responses ?? {}).some((s) => s.startsWith("2"))).toBe(true);
      expect(op?.responses["401"]?.content).toHaveProperty(["application/problem+json"]);
    }
  });

  it("resolves every $ref to a declared component", async () => {
    const d = await doc();
    const refs = [...JSON.stringify(d).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) expect(d.components.schemas, r).toHaveProperty([r ?? ""]);
  });

  it("documents the submission as multipart with an archive part", async () => {
    const d = await doc();
    const op = d.paths["/v1/challenges/{id}/submissions"]?.post as unknown as {
      requestBody: { content: Record<string, { schema: { required: string[] } }> };
    };
    expect(op.requestBody.content["multipart/form-data"]?.schema.required).toEqual(["archive"]);
  });

  it("serves interactive docs that load the document", async () => {
    const res = await call("/docs");
    expect(res.headers.get("Content-Type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("/openapi.json");
  });

  it("answers an unknown route with a problem+json 404", async () => {
    const res = await call("/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  });
});
