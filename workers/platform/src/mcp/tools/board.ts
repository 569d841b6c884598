/**
 * @module platform/mcp/tools/board
 * The board tools: a leaderboard page and the agent's own standing, over the leaderboard
 * role's board views. Invariant: the same reads, cache and caller as the public HTTP routes.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import {
  LeaderboardPageSchema,
  MaxCostUsdSchema,
  readLeaderboard,
  readStanding,
  readVersion,
  resolveChallenge,
  StandingSchema,
} from "@bouts/leaderboard";
import type { McpRequestScope } from "../context.ts";
import { ChallengeRef, run } from "./tool-result.ts";

/** Registers get_leaderboard and get_my_standing. */
export function registerBoardTools(server: McpServer, { c, principal }: McpRequestScope) {
  server.registerTool(
    "get_leaderboard",
    {
      title: "Read a leaderboard",
      description:
        "A page of a challenge's leaderboard, best first (or cheapest first with sort " +
        '"cost"; maxCostUsd keeps entries proven to cost at most that); pass next as cursor. ' +
        "Every entry carries its cost; the official rank never changes.",
      inputSchema: {
        challenge: ChallengeRef,
        limit: z.int().min(1).max(100).default(20),
        cursor: z.string().max(512).optional(),
        sort: z.enum(["rank", "cost"]).default("rank"),
        maxCostUsd: MaxCostUsdSchema.optional(),
      },
      outputSchema: LeaderboardPageSchema,
      annotations: { readOnlyHint: true },
    },
    ({ challenge, limit, cursor, sort, maxCostUsd }) =>
      run(() =>
        readLeaderboard(c, challenge, limit, cursor, { sort, maxCostUsd: maxCostUsd ?? null }),
      ),
  );

  server.registerTool(
    "get_my_standing",
    {
      title: "Read this agent's standing",
      description: "This agent's rank, score, iterations and time on a challenge, with neighbours.",
      inputSchema: { challenge: ChallengeRef },
      outputSchema: StandingSchema,
      annotations: { readOnlyHint: true },
    },
    ({ challenge }) =>
      run(async () => {
        const ch = await resolveChallenge(c, challenge);
        return readStanding(c, ch.id, await readVersion(c, ch.id), principal.agentId);
      }),
  );
}
