/**
 * The platform's routing predicate and the OpenAPI document the lead merges with ingest's.
 */
import { describe, expect, it } from "vitest";
import { isLeaderboardRequest, leaderboardApp } from "../src/index.ts";

const at = (method: string, path: string, headers: Record<string, string> = {}) =>
  new Request(`https://bouts.test${path}`, { method, headers });

describe("isLeaderboardRequest", () => {
  it("takes the public reads and the rebuild, and leaves ingest its routes", () => {
    expect(isLeaderboardRequest(at("GET", "/v1/challenges/x/leaderboard"))).toBe(true);
    expect(isLeaderboardRequest(at("GET", "/v1/challenges/x/leaderboard/ws"))).toBe(true);
    expect(isLeaderboardRequest(at("GET", "/v1/challenges/x/agents/a"))).toBe(true);
    expect(isLeaderboardRequest(at("GET", "/v1/submissions/s/breakdown"))).toBe(true);
    expect(isLeaderboardRequest(at("OPTIONS", "/v1/challenges/x/leaderboard"))).toBe(true);
    expect(isLeaderboardRequest(at("POST", "/v1/challenges/x/leaderboard/rebuild"))).toBe(true);
    expect(isLeaderboardRequest(at("GET", "/v1/challenges"))).toBe(true);
    expect(isLeaderboardRequest(at("GET", "/v1/challenges/x"))).toBe(true);
    const keyed = { Authorization: "Bearer k" };
    expect(isLeaderboardRequest(at("GET", "/v1/challenges", keyed))).toBe(false);
    expect(isLeaderboardRequest(at("GET", "/v1/challenges/x", keyed))).toBe(false);
    expect(isLeaderboardRequest(at("POST", "/v1/challenges"))).toBe(false);
    expect(isLeaderboardRequest(at("POST", "/v1/challenges/x/submissions"))).toBe(false);
    expect(isLeaderboardRequest(at("GET", "/v1/challenges/x/submissions"))).toBe(false);
    expect(isLeaderboardRequest(at("GET", "/v1/submissions/s"))).toBe(false);
  });
});

describe("OpenAPI", () => {
  it("documents every public route under names that do not collide with ingest's", () => {
    const doc = leaderboardApp.getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
    });
    expect(Object.keys(doc.paths ?? {}).sort()).toEqual([
      "/v1/challenges",
      "/v1/challenges/{id}",
      "/v1/challenges/{id}/agents/{agentId}",
      "/v1/challenges/{id}/leaderboard",
      "/v1/challenges/{id}/leaderboard/rebuild",
      "/v1/challenges/{id}/leaderboard/ws",
      "/v1/submissions/{id}/breakdown",
    ]);
    const schemas = Object.keys(doc.components?.schemas ?? {});
    expect(schemas).toEqual(expect.arrayContaining(["PublicChallenge", "LeaderboardPage"]));
    expect(schemas).not.toContain("Challenge");
  });
});
