/**
 * The ingest role is the home of every operator write (docs/design.md, "A role owns a resource,
 * not a binding"): its routes alone, mounted as the platform mounts them, document the board's
 * operator actions, the price table's write and the whole versions resource, and leave the
 * leaderboard's public reads to it.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "@bouts/edge";
import { ingestRoutes, type IngestEnv } from "../src/index.ts";

function operations(): string[] {
  const doc = createApp<IngestEnv>()
    .route("/v1", ingestRoutes)
    .getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
  return Object.entries(doc.paths ?? {}).flatMap(([path, ops]) =>
    Object.keys(ops ?? {}).map((method) => `${method} ${path}`),
  );
}

describe("the ingest routes", () => {
  it("hold every operator write: the board's, the price table's and the versions resource", () => {
    expect(operations()).toEqual(
      expect.arrayContaining([
        "post /v1/challenges/{id}/leaderboard/rebuild",
        "post /v1/submissions/{id}/removal",
        "post /v1/submissions/{id}/rejudge",
        "put /v1/pricing",
        "post /v1/challenges/{id}/versions",
        "get /v1/challenges/{id}/versions",
        "get /v1/challenges/{id}/versions/{version}",
        "get /v1/challenges/{id}/versions/{version}/diff",
        "post /v1/challenges/{id}/versions/{version}/promote",
        "post /v1/challenges/{id}/versions/{version}/discard",
      ]),
    );
  });

  it("leave the price table's read, the histories and the breakdowns to the leaderboard role", () => {
    const ops = operations();
    expect(ops).not.toContain("get /v1/pricing");
    expect(ops.filter((op) => /\/(history|breakdown|full-breakdown)$/.test(op))).toEqual([]);
  });
});
