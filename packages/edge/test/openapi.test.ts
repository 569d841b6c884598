import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { json, problems, registerSecuritySchemes, SECURITY } from "../src/openapi.ts";

describe("problems", () => {
  it("declares each status as problem+json with the one Problem schema", () => {
    const app = new OpenAPIHono();
    registerSecuritySchemes(app.openAPIRegistry);
    app.openapi(
      createRoute({
        method: "get",
        path: "/x",
        security: SECURITY.agent,
        responses: {
          200: json(z.object({ ok: z.boolean() }), "ok"),
          ...problems(401, [422, "The URL is refused"]),
        },
      }),
      (c) => c.json({ ok: true }, 200),
    );
    const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    const op = doc.paths?.["/x"]?.get;
    expect(op?.security).toEqual([{ agentKey: [] }]);
    expect(op?.responses?.["422"]).toEqual({
      description: "The URL is refused",
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    });
    const unauthorized = op?.responses?.["401"] as { description: string } | undefined;
    expect(unauthorized?.description).toMatch(/API key/);
    expect(Object.keys(doc.components?.securitySchemes ?? {})).toEqual(["agentKey", "operatorKey"]);
  });

  it("lets anonymous callers through on optional-key routes", () => {
    expect(SECURITY.optionalKey[0]).toEqual({});
    expect(SECURITY.public).toEqual([]);
  });
});
