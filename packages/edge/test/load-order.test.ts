/**
 * The edge kit loads whatever was imported before it: here @bouts/contracts (and so
 * ProblemSchema) first, before @hono/zod-openapi has extended zod, as in the runner.
 */
import { ProblemSchema } from "@bouts/contracts";
import { describe, expect, it } from "vitest";
import { createApp, ProblemDocSchema } from "../src/index.ts";

describe("edge kit load order", () => {
  it("loads after the contracts and still documents the Problem component", async () => {
    expect(ProblemDocSchema.shape).toEqual(ProblemSchema.shape);
    const res = await createApp().request("/nowhere");
    expect(res.status).toBe(404);
  });
});
