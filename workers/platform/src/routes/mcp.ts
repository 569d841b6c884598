/**
 * @module platform/routes/mcp
 * `POST /mcp`: the remote MCP endpoint (Streamable HTTP, the SDK's web-standard transport) in
 * stateless mode: every request is authenticated on its own with the agent's key (`agentOnly`:
 * 401, the agent's API rate limit 429, an agent's key 403, as every agent route), then served
 * by a fresh server and transport (platform/mcp/server). No `Mcp-Session-Id` is issued, so
 * there is no session to resume, hijack or terminate; `GET` (a standalone SSE stream) and
 * `DELETE` (ending a session) answer 405 with `Allow: POST`, as the protocol lets a server do.
 * Invariants: every refusal of the transport (bad JSON, a wrong Accept or Content-Type) is
 * problem+json like the rest of the API; a tool never runs for an unauthenticated request.
 */
import { createRoute } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMiddleware } from "hono/factory";
import { ACCESS_PROBLEMS, agentOnly, type Principal } from "@bouts/auth";
import { buildProblem, PROBLEM_CONTENT_TYPE } from "@bouts/contracts";
import { createRouter, problemResponse, problems, SECURITY } from "@bouts/edge";
import type { CacheOptions, LeaderboardEnv } from "@bouts/leaderboard";
import { createMcpServer, type McpContext } from "../mcp/server.ts";

type McpEnv = LeaderboardEnv & { Variables: { principal: Principal } };

/** A JSON-RPC message or batch, as the document describes the body (the SDK parses it). */
const JSON_RPC_BODY_DOC: {
  description: string;
  oneOf: ({ type: "object" } | { type: "array"; items: { type: "object" } })[];
} = {
  description:
    "A JSON-RPC 2.0 request or notification of the Model Context Protocol (initialize, " +
    "tools/list, tools/call, resources/read …), or a batch of them.",
  oneOf: [{ type: "object" }, { type: "array", items: { type: "object" } }],
};

/**
 * A transport refusal (the SDK answers JSON-RPC errors with an HTTP status) as problem+json,
 * keeping the status and the SDK's message as the detail.
 */
async function asProblem(res: Response): Promise<Response> {
  if (res.status < 400 || res.headers.get("Content-Type") === PROBLEM_CONTENT_TYPE) return res;
  let message = res.statusText || "The MCP request was refused.";
  try {
    const body = await res.json<{ error?: { message?: string } }>();
    if (body.error?.message) message = body.error.message;
  } catch {
    // not JSON: keep the status text
  }
  const status = res.status;
  const title =
    status === 406
      ? "Not acceptable"
      : status === 415
        ? "Unsupported media type"
        : "Invalid MCP request";
  const headers: Record<string, string> = {};
  const allow = res.headers.get("Allow");
  if (allow) headers.Allow = allow;
  return problemResponse(buildProblem(status, "mcp-transport", title, message), headers);
}

/** The MCP route, to mount at the root; `cache` are the leaderboard reads' cache options. */
export function createMcpRoutes(cache: CacheOptions) {
  const routes = createRouter<McpEnv>();
  const boardReads = createMiddleware<McpEnv>(async (c, next) => {
    c.set("cache", cache);
    c.set("caller", c.var.principal);
    await next();
  });

  routes.openapi(
    createRoute({
      method: "post",
      path: "/mcp",
      tags: ["mcp"],
      summary: "The MCP endpoint: an agent's tools and resources (Streamable HTTP, stateless)",
      description:
        "Model Context Protocol over Streamable HTTP (docs/agents.md). Send " +
        "`Accept: application/json, text/event-stream`; answers are JSON or an SSE stream " +
        "(progress notifications, then the result). Stateless: no session id; every request " +
        "carries the agent's key. Tool refusals are tool results with `isError` and the " +
        "route's problem document; transport refusals are problem+json.",
      security: SECURITY.agent,
      middleware: [agentOnly, boardReads] as const,
      request: {
        body: { required: true, content: { "application/json": { schema: JSON_RPC_BODY_DOC } } },
      },
      responses: {
        200: {
          description: "The JSON-RPC answer, as JSON or as an SSE stream",
          content: {
            "application/json": { schema: { type: "object" } },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        202: { description: "Accepted: the body held only notifications or responses" },
        ...problems(
          ...ACCESS_PROBLEMS.agent,
          [400, "Not a JSON-RPC message, or a batch the protocol does not allow"],
          406,
          413,
          415,
        ),
      },
    }),
    async (c) => {
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
      });
      const principal = c.var.principal;
      // agentOnly let only an agent's key through; narrowed here for the tools.
      if (principal.role !== "agent") throw new Error("unreachable: agentOnly admits agents only");
      const server = createMcpServer(c as unknown as McpContext, principal);
      await server.connect(transport);
      const res = await transport.handleRequest(c.req.raw);
      return asProblem(res);
    },
  );

  return routes;
}
