/**
 * Every `text/event-stream` response of the API document declares one event's schema: an
 * object whose `data` is a string (OpenAPI 3.1 has no `itemSchema`, so Schemathesis checks each
 * event, `{ data, event: "message" }`, against the media type's schema). The gateway's stream
 * once declared `{ type: "string" }`, and the contract test failed whenever its fuzzing asked for
 * `stream: true` (ST108, "SSE event violates schema").
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

const document = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../openapi.json"), "utf8"),
) as { paths: Record<string, Record<string, Operation>> };

/** Each `text/event-stream` response's schema, named by method, path and status. */
const streams = Object.entries(document.paths).flatMap(([p, ops]) =>
  Object.entries(ops).flatMap(([method, op]) =>
    Object.entries(op.responses ?? {}).flatMap(([status, r]) => {
      const media = r.content?.["text/event-stream"];
      return media
        ? [{ name: `${method.toUpperCase()} ${p} ${status}`, schema: media.schema }]
        : [];
    }),
  ),
);

describe("server-sent event streams in the API document", () => {
  it("include the gateway's chat completions and the MCP endpoint", () => {
    expect(streams.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        "POST /v1/challenges/{id}/gateway/v1/chat/completions 200",
        "POST /mcp 200",
      ]),
    );
  });

  it("declare each event as an object with a string `data`, as Schemathesis reads them", () => {
    for (const { name, schema } of streams) {
      expect(schema, name).toMatchObject({
        type: "object",
        required: expect.arrayContaining(["data"]) as unknown,
        properties: { data: { type: "string" }, event: { type: "string" } },
      });
    }
  });
});
