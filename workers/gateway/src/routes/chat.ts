/**
 * @module gateway-worker/routes/chat
 * The metering gateway's one route, OpenAI-compatible: an agent sets its OpenAI base URL to
 * `<platform>/v1/challenges/<id>/gateway/v1` and its API key to its Bouts agent key, and its chat
 * completions go through the platform, which records what each call spent (docs/gateway.md).
 * Invariants: only an agent entered in the open challenge may call (else 403, 404 or 409, before
 * any of the body is read); the body is read to at most `MAX_REQUEST_BYTES`; a body needs a
 * string `model` and an array `messages`, and every other field passes through unchanged.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, agentIdOf, agentOnly } from "@bouts/auth";
import { buildProblem, problemFromZodError } from "@bouts/contracts";
import { createDb, findChallenge, findEntry } from "@bouts/db";
import { createRouter, problems, SECURITY, sseEventDoc } from "@bouts/edge";
import { readGatewayConfig } from "../config.ts";
import { fail } from "../errors.ts";
import { forwardChatCompletion, MAX_RESPONSE_BYTES, type ChatRequest } from "../forward.ts";
import { MAX_MODEL_NAME } from "../usage.ts";

/** The largest request body the gateway reads (1 MiB); a larger one is a 413. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/** The Hono environment of the gateway route: the Worker's generated `Env`. */
export type GatewayEnv = { Bindings: Env };

/** The fields the gateway reads of a chat completion; anything else passes through. */
export const ChatBodySchema = z.looseObject({
  model: z.string().min(1).max(MAX_MODEL_NAME),
  messages: z.array(z.unknown()),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({}).nullable().optional(),
});

/** The request body as the document shows it (not a validator: the handler reads the bytes). */
const CHAT_BODY_DOC = {
  type: "object",
  required: ["model", "messages"] as string[],
  description:
    "An OpenAI chat completion request. `model` and `messages` are required; every other field passes to the upstream unchanged. With `stream: true` the gateway asks for the final usage chunk (`stream_options.include_usage`).",
  properties: {
    model: { type: "string", minLength: 1, maxLength: MAX_MODEL_NAME },
    messages: { type: "array", items: {} },
    stream: { type: "boolean" },
    stream_options: { type: ["object", "null"] as ("object" | "null")[] },
  },
} as const;

/** The upstream's answer as the document shows it: an OpenAI chat completion, passed back as is. */
const COMPLETION_DOC = {
  type: "object",
  description: "The upstream's chat completion, unchanged (`usage` is what the gateway records).",
  additionalProperties: {},
} as const;

const IdParam = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/, "an id or slug")
    .openapi({ param: { name: "id", in: "path" }, example: "notes-api-agent" }),
});

/** The gateway route, to mount at /v1. */
export const gatewayRoutes = createRouter<GatewayEnv>();

gatewayRoutes.openapi(
  createRoute({
    method: "post",
    path: "/challenges/{id}/gateway/v1/chat/completions",
    tags: ["gateway"],
    summary: "Call a model through the challenge's metering gateway (OpenAI-compatible)",
    description:
      "Set the OpenAI base URL to `/v1/challenges/{id}/gateway/v1` and the API key to your agent key. " +
      "The call is forwarded to the platform's model provider with the platform's key, and its token " +
      "usage is recorded for your entry: the score compares it with your trace's token counts. The " +
      "provider's answer is passed back unchanged, with its status (a provider's own 4xx or 5xx too).",
    security: SECURITY.agent,
    middleware: [agentOnly] as const,
    request: {
      params: IdParam,
      body: { required: true, content: { "application/json": { schema: CHAT_BODY_DOC } } },
    },
    responses: {
      200: {
        description: "The provider's chat completion (JSON), or its stream of server-sent events",
        content: {
          "application/json": { schema: COMPLETION_DOC },
          "text/event-stream": {
            schema: sseEventDoc(
              "the provider's event as it sent it: one `chat.completion.chunk` as JSON text, or `[DONE]`",
            ),
          },
        },
      },
      ...problems(
        ...ACCESS_PROBLEMS.agent,
        400,
        [403, "An agent key, but the agent has not entered this challenge (`not-entered`)"],
        404,
        [409, "The challenge is closed (`challenge-closed`)"],
        [413, `The body is over ${MAX_REQUEST_BYTES} bytes`],
        415,
        [
          502,
          `The provider could not be reached, cut its answer off, or answered over ${MAX_RESPONSE_BYTES} bytes; the call is recorded without usage`,
        ],
        [503, "The gateway has no upstream (`no-upstream`): this deployment meters no model calls"],
        [504, "The provider did not answer in time; the call is recorded without usage"],
      ),
    },
  }),
  async (c) => {
    const agentId = agentIdOf(c.var.principal);
    const config = readGatewayConfig(c.env);
    const url = config.completionsUrl;
    if (url === null) fail({ reason: "no-upstream" });
    const db = createDb(c.env.DB);
    const challenge = await findChallenge(db, c.req.valid("param").id);
    if (!challenge || challenge.status === "draft") fail({ reason: "not-found" });
    const closed = challenge.closesAt !== null && challenge.closesAt <= Date.now();
    if (challenge.status !== "published" || closed) fail({ reason: "challenge-closed" });
    if (!(await findEntry(db, agentId, challenge.id))) fail({ reason: "not-entered" });
    const request = await readChatRequest(c.req.raw);
    const answer = await forwardChatCompletion(
      {
        agentId,
        challengeId: challenge.id,
        db,
        config,
        waitUntil: (w) => c.executionCtx.waitUntil(w),
      },
      url,
      request,
    );
    // The upstream's answer, passed back as is; the document declares its shapes above.
    return answer;
  },
);

/** Reads and checks the agent's request: JSON (415), at most `MAX_REQUEST_BYTES` (413), the fields (400). */
async function readChatRequest(request: Request): Promise<ChatRequest> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) fail({ reason: "unsupported-media-type" });
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > MAX_REQUEST_BYTES)
    fail({ reason: "too-large", limit: MAX_REQUEST_BYTES });
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_REQUEST_BYTES) {
        await reader.cancel();
        fail({ reason: "too-large", limit: MAX_REQUEST_BYTES });
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    fail({ reason: "invalid-body", problem: invalidJson() });
  }
  const parsed = ChatBodySchema.safeParse(json);
  if (!parsed.success)
    fail({ reason: "invalid-body", problem: problemFromZodError(parsed.error, "body") });
  return { bytes, body: parsed.data };
}

function invalidJson() {
  const message = "not a JSON document (UTF-8)";
  return buildProblem(400, "validation", "Invalid request", `Invalid body: ${message}`, {
    errors: [{ path: "(root)", message }],
  });
}
