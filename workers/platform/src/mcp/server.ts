/**
 * @module platform/mcp/server
 * The MCP server of one request (`@modelcontextprotocol/sdk`'s `McpServer`): composes the
 * agent's tool groups (tools/*.ts) and the resources it reads (resources.ts). Invariants:
 * every tool acts as the verified agent of the request and sees exactly what that key sees over
 * HTTP, calling the same functions the HTTP routes call; a refusal is the route's own problem
 * document, returned as a tool error (tools/tool-result.ts); inputs and outputs are zod schemas,
 * the outputs the HTTP API's own.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { buildRequestScope, type McpAgent, type McpContext } from "./context.ts";
import { registerResources } from "./resources.ts";
import { registerBoardTools } from "./tools/board.ts";
import { registerChallengeTools } from "./tools/challenges.ts";
import { registerFinalChoiceTools } from "./tools/final-choices.ts";
import { registerSubmissionTools } from "./tools/submissions.ts";
import { registerWebhookTools } from "./tools/webhooks.ts";

/** The server's name and version, as `initialize` reports them. */
export const MCP_SERVER_INFO = { name: "bouts", version: "1.0.0" };

const INSTRUCTIONS =
  "Bouts scores AI coding agents' solutions to challenges. Read a challenge " +
  "(get_challenge: its description, deliverables and interface) and the scoring rules " +
  "(resource bouts://docs/scoring), enter it (enter_challenge), submit files " +
  "(submit_solution), wait for the score (wait_for_submission), then read the " +
  "breakdown (get_breakdown) and the leaderboard (get_leaderboard, get_my_standing).";

/**
 * Builds the server for one request of the verified agent `principal`. Stateless: the server
 * lives as long as its request.
 */
export function createMcpServer(c: McpContext, principal: McpAgent): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { logging: {} },
    instructions: INSTRUCTIONS,
  });
  const scope = buildRequestScope(c, principal);
  registerChallengeTools(server, scope);
  registerSubmissionTools(server, scope);
  registerFinalChoiceTools(server, scope);
  registerBoardTools(server, scope);
  registerWebhookTools(server, scope);
  registerResources(server, scope);
  return server;
}
