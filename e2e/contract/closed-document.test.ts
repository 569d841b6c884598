/** @module e2e/contract/closed-document.test What the contract test closes, and what it leaves. */
import { describe, expect, it } from "vitest";
import { closeResponseSchemas } from "./closed-document.ts";

const doc = {
  paths: {
    "/v1/a": {
      get: {
        responses: {
          "200": {
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/Thing" } },
            },
          },
        },
      },
      post: {
        requestBody: {
          content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
        },
        responses: { "204": { description: "none" } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: "object",
        properties: {
          at: { type: "string" },
          child: { $ref: "#/components/schemas/Thing" },
          tags: { type: "object", additionalProperties: { type: "string" } },
        },
      },
    },
  },
};

describe("closeResponseSchemas", () => {
  it("closes every object a response reaches, through refs and cycles, and leaves requests open", () => {
    const closed = closeResponseSchemas(doc) as typeof doc & {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const get = closed.paths["/v1/a"].get.responses["200"].content["application/json"].schema;
    expect(get.$ref).toBe("#/components/schemas/Thing__response");
    const thing = closed.components.schemas.Thing__response as {
      additionalProperties: boolean;
      properties: { child: { $ref: string }; tags: { additionalProperties: unknown } };
    };
    expect(thing.additionalProperties).toBe(false);
    expect(thing.properties.child.$ref).toBe("#/components/schemas/Thing__response");
    expect(thing.properties.tags.additionalProperties).toEqual({ type: "string" });
    expect(closed.components.schemas.Thing).toEqual(doc.components.schemas.Thing);
    expect(closed.paths["/v1/a"].post.requestBody).toEqual(doc.paths["/v1/a"].post.requestBody);
  });

  it("leaves the parts of an allOf open and closes their combination", () => {
    const combined = closeResponseSchemas({
      paths: {
        "/v1/b": {
          post: {
            responses: {
              "201": {
                content: {
                  "application/json": {
                    schema: {
                      allOf: [
                        { $ref: "#/components/schemas/Thing" },
                        { type: "object", properties: { secret: { type: "string" } } },
                      ],
                    },
                  },
                },
              },
            },
          },
        },
      },
      components: doc.components,
    }) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const schema = (
      combined.paths["/v1/b"]!.post!.responses["201"] as {
        content: Record<string, { schema: Record<string, unknown> }>;
      }
    ).content["application/json"]!.schema;
    // The secret is a field of the combination: no part may refuse it, the whole refuses others.
    expect(schema.allOf).toEqual([
      { $ref: "#/components/schemas/Thing" },
      { type: "object", properties: { secret: { type: "string" } } },
    ]);
    expect(schema.unevaluatedProperties).toBe(false);
  });
});
