/**
 * @module platform/mcp/route
 * `POST /mcp`: the remote MCP endpoint (Streamable HTTP, the SDK's web-standard transport) in
 * stateless mode: every request is authenticated on its own with the agent's key (`agentOnly`:
 * 401, the agent's API rate limit 429, an agent's key 403, as every agent route), then served
 * by a fresh server and transport (server.ts). No `Mcp-Session-Id` is issued, so
 * there is no session to resume, hijack or terminate; `GET` (a standalone SSE stream) and
 * `DELETE` (ending a session) answer 405 with `Allow: POST`, as the protocol lets a server do.
 * Invariants: every refusal of the transport (bad JSON, a wrong Accept or Content-Type) is
 * problem+json like the rest of the API; a tool never runs for an unauthenticated request.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMiddleware } from "hono/factory";
import { ACCESS_PROBLEMS, agentOnly, type Principal } from "@bouts/auth";
import { buildProblem, PROBLEM_CONTENT_TYPE } from "@bouts/contracts";
import { createRouter, problemResponse, problems, SECURITY, sseEventDoc } from "@bouts/edge";
import type { CacheOptions, LeaderboardEnv } from "@bouts/leaderboard";
import type { McpContext } from "./context.ts";
import { createMcpServer } from "./server.ts";

type McpEnv = LeaderboardEnv & { Variables: { principal: Principal } };

/**
 * A JSON-RPC request or notification of the protocol, or a batch of them: the body the route
 * validates (400 problem+json otherwise) and the document declares, so both say the same. The
 * SDK then reads the parsed body; a stateless server sends no requests, so clients send no
 * responses.
 */
const JsonRpcMessageSchema = z
  .strictObject({
    jsonrpc: z.literal("2.0"),
    method: z.string().min(1).max(200),
    // A number id is a safe integer, stated in the document too: past 2^53 it would not come
    // back as the same number, and the document's bare `integer` let Schemathesis send one.
    id: z
      .union([
        z.string().min(1).max(200),
        z.int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
      ])
      .optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("McpMessage", {
    description:
      "A JSON-RPC 2.0 request (with `id`) or notification of the Model Context Protocol: " +
      "initialize, tools/list, tools/call, resources/read …",
  });
const McpBodySchema = z.union([JsonRpcMessageSchema, z.array(JsonRpcMessageSchema).min(1).max(20)]);

/** What the protocol asks a client to accept; a client that accepts anything gets it. */
const MCP_ACCEPT = "application/json, text/event-stream";

/**
 * The request the transport reads: the Accept of a client that sent none, or `*\/*`, becomes
 * the protocol's (such a client takes either answer); any other Accept is left for the
 * transport to judge (406). The body was read and validated by the route.
 */
function transportRequest(req: Request): Request {
  const headers = new Headers(req.headers);
  const accept = headers.get("Accept");
  if (!accept || accept.includes("*/*")) headers.set("Accept", MCP_ACCEPT);
  return new Request(req.url, { method: req.method, headers });
}

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
        "`Accept: application/json, text/event-stream` (no Accept, or `*/*`, counts as that); " +
        "answers are JSON or an SSE stream " +
        "(progress notifications, then the result). Stateless: no session id; every request " +
        "carries the agent's key. Tool refusals are tool results with `isError` and the " +
        "route's problem document; transport refusals are problem+json.",
      security: SECURITY.agent,
      middleware: [agentOnly, boardReads] as const,
      request: {
        body: { required: true, content: { "application/json": { schema: McpBodySchema } } },
      },
      responses: {
        200: {
          description: "The JSON-RPC answer, as JSON or as an SSE stream",
          content: {
            "application/json": { schema: { type: "object" } },
            "text/event-stream": {
              schema: sseEventDoc("one JSON-RPC message, as JSON text", ["message"]),
            },
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
      const res = await transport.handleRequest(transportRequest(c.req.raw), {
        parsedBody: c.req.valid("json"),
      });
      return asProblem(res);
    },
  );

  return routes;
}
