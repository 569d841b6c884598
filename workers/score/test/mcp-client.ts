/**
 * The SDK's own MCP client (`Client` + `StreamableHTTPClientTransport`) against the platform
 * Worker in workerd, through `exports.default.fetch`: what a remote MCP client does, with no
 * network in between. It lives with the score role's tests, whose project runs the platform
 * entry with the real runner (the MCP tools end to end); the platform's own tests import it
 * from here, as the platform may import any role and no role another.
 */
import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The endpoint the tests connect to. */
export const MCP_URL = "http://platform.test/mcp";

/** The Worker's fetch, as the client transport calls it. */
export const workerFetch: typeof fetch = (input, init) =>
  exports.default.fetch(new Request(input instanceof URL ? input.href : input, init));

/** A connected client that sends `key` as its bearer token. */
export async function connectMcp(key: string): Promise<Client> {
  const client = new Client({ name: "bouts-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool result's text blocks and structured content, for assertions. */
export type ToolAnswer = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

/** Calls a tool and returns its answer as `ToolAnswer`. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

/** The problem document of a tool error. */
export function problemOf(answer: ToolAnswer): { status: number; detail: string; type: string } {
  return answer._meta?.["bouts/problem"] as { status: number; detail: string; type: string };
}
