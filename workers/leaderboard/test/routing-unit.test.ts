/**
 * The OpenAPI description of this role's routes, as the platform's one document carries it.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "@bouts/edge";
import { createLeaderboardRoutes, type LeaderboardEnv } from "../src/index.ts";

describe("OpenAPI", () => {
  it("documents every route under names that do not collide with ingest's", () => {
    const doc = createApp<LeaderboardEnv>()
      .route("/", createLeaderboardRoutes())
      .getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    expect(Object.keys(doc.paths ?? {}).sort()).toEqual([
      "/v1/challenges/{id}/agents/{agentId}",
      "/v1/challenges/{id}/history",
      "/v1/challenges/{id}/leaderboard",
      "/v1/challenges/{id}/leaderboard/cost",
      "/v1/challenges/{id}/leaderboard/ws",
      "/v1/pricing",
      "/v1/submissions/{id}/breakdown",
      "/v1/submissions/{id}/full-breakdown",
      "/v1/submissions/{id}/history",
    ]);
    const schemas = Object.keys(doc.components?.schemas ?? {});
    expect(schemas).toEqual(expect.arrayContaining(["LeaderboardPage", "AgentStanding"]));
    expect(schemas).not.toContain("Challenge");
  });

  it("serves reads only: every operator write is the ingest role's", () => {
    const doc = createApp<LeaderboardEnv>()
      .route("/", createLeaderboardRoutes())
      .getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    const methods = Object.values(doc.paths ?? {}).flatMap((ops) => Object.keys(ops ?? {}));
    expect(methods.length).toBeGreaterThan(0);
    expect(new Set(methods)).toEqual(new Set(["get"]));
  });
});
