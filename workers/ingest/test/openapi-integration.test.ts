import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ingestApp } from "../src/index.ts";
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

const ROUTES = [
  ["post", "/v1/agents"],
  ["get", "/v1/agents"],
  ["get", "/v1/agents/{id}/keys"],
  ["get", "/v1/agents/{id}/usage"],
  ["post", "/v1/agents/{id}/keys"],
  ["delete", "/v1/keys/{id}"],
  ["post", "/v1/challenges"],
  ["get", "/v1/challenges"],
  ["get", "/v1/challenges/{id}"],
  ["patch", "/v1/challenges/{id}"],
  ["put", "/v1/challenges/{id}/bundle"],
  ["post", "/v1/challenges/{id}/publish"],
  ["post", "/v1/challenges/{id}/close"],
  ["post", "/v1/challenges/{id}/entries"],
  ["post", "/v1/challenges/{id}/submissions"],
  ["get", "/v1/challenges/{id}/submissions"],
  ["get", "/v1/submissions/{id}"],
  ["post", "/v1/submissions/{id}/rejudge"],
] as const;

// The ingest app's own document; the platform serves it merged with the other roles'
// (workers/platform/test).
async function doc(): Promise<Doc> {
  const res = await ingestApp.fetch(new Request("http://bouts.test/openapi.json"), env);
  expect(res.status).toBe(200);
  return await res.json<Doc>();
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with the bearer scheme", async () => {
    const d = await doc();
    expect(d.openapi).toBe("3.1.0");
    expect(d.info.title).toMatch(/ingest/);
    expect(d.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });

  it("describes every route, and only those", async () => {
    const d = await doc();
    const listed = Object.entries(d.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m} ${p}`),
    );
    expect(listed.sort()).toEqual(ROUTES.map(([m, p]) => `${m} ${p}`).sort());
  });

  it("gives every route a summary, the bearer requirement, a success and 401 as problem+json", async () => {
    const d = await doc();
    for (const [method, path] of ROUTES) {
      const op = d.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.summary).toBeTruthy();
      expect(op?.security).toEqual([{ bearerAuth: [] }]);
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
