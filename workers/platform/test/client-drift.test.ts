/**
 * packages/client's committed document is the live /openapi.json: a route changed without
 * `npm run client:generate` fails here (the client project checks the types against it).
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import committed from "../../../packages/client/openapi.json";

describe("packages/client", () => {
  it("holds the live OpenAPI document (run npm run client:generate)", async () => {
    const live = await (await exports.default.fetch("http://platform.test/openapi.json")).json();
    expect(live).toEqual(committed);
  });
});
