import { createRoute, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it, vi } from "vitest";
import { buildProblem } from "@bouts/contracts";
import { createApp, createRouter, resolveAllowedMethods } from "../src/app.ts";
import { HttpError } from "../src/http-error.ts";
import { json, problems } from "../src/openapi.ts";

const PROBLEM = "application/problem+json";

function buildApp() {
  const routes = createRouter();
  routes.openapi(
    createRoute({
      method: "get",
      path: "/things/{id}",
      request: { params: z.object({ id: z.string().regex(/^[a-z]+$/) }) },
      responses: { 200: json(z.object({ id: z.string() })), ...problems(400, 404) },
    }),
    (c) => c.json({ id: c.req.valid("param").id }, 200),
  );
  routes.post("/things", () => {
    throw new HttpError({
      problem: buildProblem(409, "conflict", "Conflict", "Already there."),
      headers: { "Retry-After": "5" },
    });
  });
  routes.delete("/things/:id", () => {
    throw new HTTPException(415, { message: "Unsupported Media Type" });
  });
  routes.put("/boom", () => {
    throw new Error("secret internals");
  });
  return createApp().route("/v1", routes);
}

describe("createApp", () => {
  it("renders a validation failure as a 400 problem naming the field", async () => {
    const res = await buildApp().request("/v1/things/NOPE");
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toBe(PROBLEM);
    expect(await res.json()).toMatchObject({
      type: "urn:bouts:problem:validation",
      errors: [{ path: "id" }],
    });
  });

  it("renders an HttpError with its status, problem and headers", async () => {
    const res = await buildApp().request("/v1/things", { method: "POST" });
    expect(res.status).toBe(409);
    expect(res.headers.get("Retry-After")).toBe("5");
    expect(await res.json()).toEqual({
      type: "urn:bouts:problem:conflict",
      title: "Conflict",
      status: 409,
      detail: "Already there.",
    });
  });

  it("keeps the status of Hono's own aborts", async () => {
    const res = await buildApp().request("/v1/things/abc", { method: "DELETE" });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ type: "urn:bouts:problem:http" });
  });

  it("logs an unexpected error and answers a generic 500", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await buildApp().request("/v1/boom", { method: "PUT" });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret internals");
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  it("answers 404 for a path no route has", async () => {
    const res = await buildApp().request("/v1/nothing");
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toBe(PROBLEM);
    expect(res.headers.get("Allow")).toBeNull();
  });

  it("answers 405 with Allow for a known path and another method", async () => {
    const res = await buildApp().request("/v1/things", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST");
    expect(res.headers.get("Content-Type")).toBe(PROBLEM);
    expect(await res.json()).toMatchObject({ type: "urn:bouts:problem:method-not-allowed" });
    const one = await buildApp().request("/v1/things/abc", { method: "PATCH" });
    expect(one.status).toBe(405);
    expect(one.headers.get("Allow")).toBe("GET, HEAD, DELETE");
  });

  it("does not take a trailing slash or a deeper path for a known path", async () => {
    expect((await buildApp().request("/v1/things/", { method: "DELETE" })).status).toBe(404);
    expect((await buildApp().request("/v1/things/a/b")).status).toBe(404);
  });
});

describe("resolveAllowedMethods", () => {
  it("ignores middleware and matches parameters and wildcards", () => {
    const routes = [
      { method: "ALL", path: "/v1/*" },
      { method: "GET", path: "/v1/a/:id" },
      { method: "POST", path: "/v1/a/:id{[0-9]+}" },
      { method: "PUT", path: "/files/*" },
    ];
    expect(resolveAllowedMethods(routes, "/v1/a/x")).toEqual(["GET", "HEAD"]);
    expect(resolveAllowedMethods(routes, "/v1/a/7")).toEqual(["GET", "HEAD", "POST"]);
    expect(resolveAllowedMethods(routes, "/files/a/b")).toEqual(["PUT"]);
    expect(resolveAllowedMethods(routes, "/v1/b")).toEqual([]);
  });
});
