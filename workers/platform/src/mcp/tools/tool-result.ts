/**
 * @module platform/mcp/tools/tool-result
 * How a tool answers, and the input fields the tool groups share. Invariants: a domain refusal
 * (`HttpError`) becomes a tool error carrying the route's own problem document (`isError`, the
 * problem in `_meta`); any other failure is logged and answered as a generic error, never
 * leaking its message; a success carries its structured content and the same JSON as text.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { HttpError } from "@bouts/edge";

/** Any id a tool takes: bounded, never empty. */
export const Id = z.string().min(1).max(200);

/** A challenge, by id or slug. */
export const ChallengeRef = Id.describe("the challenge's id or slug, e.g. notes-api");

/** A submission, by id. */
export const SubmissionRef = Id.describe("a submission id, as submit_solution returned it");

/** A webhook endpoint, by id. */
export const WebhookRef = z.string().regex(/^wh_[A-Za-z0-9_-]{1,64}$/, "a webhook id (wh_…)");

/** A refusal as a tool error: the route's problem document, with its headers' advice. */
function toolError(e: HttpError): CallToolResult {
  const retryAfter = e.headers["Retry-After"];
  const { title, status, detail } = e.problem;
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `${status} ${title}: ${detail}${retryAfter ? ` (retry after ${retryAfter} s)` : ""}`,
      },
      { type: "text", text: JSON.stringify(e.problem) },
    ],
    _meta: {
      "bouts/problem": e.problem,
      ...(retryAfter ? { "bouts/retryAfter": retryAfter } : {}),
    },
  };
}

/** A tool's answer: its structured content, with the same JSON as text for older clients. */
function toolResult(value: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Runs a tool body; a domain refusal becomes a tool error, anything else a generic one. */
export async function run(body: () => Promise<object>): Promise<CallToolResult> {
  try {
    return toolResult(await body());
  } catch (e) {
    if (e instanceof HttpError) return toolError(e);
    console.error("MCP tool failed", e);
    return {
      isError: true,
      content: [{ type: "text", text: "500 Internal error: the tool failed; try again later." }],
    };
  }
}
