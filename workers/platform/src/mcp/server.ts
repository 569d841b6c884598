/**
 * @module platform/mcp/server
 * The MCP server of one request (`@modelcontextprotocol/sdk`'s `McpServer`): the agent's tools
 * and the resources it reads, each tool a thin layer over the same functions the HTTP routes
 * call (ingest's agent actions and keyed challenge reads, the leaderboard's board views, the
 * webhook role's endpoint actions). Invariants: every tool acts as the verified agent of the
 * request and sees exactly what that key sees over HTTP; a refusal is the route's own problem
 * document, returned as a tool error (`isError`, the problem in `_meta`); inputs and outputs
 * are zod schemas, the outputs the HTTP API's own; the submit tool packs the file map into a
 * .tar.gz and hands it to the upload path itself, so it is validated exactly like an upload.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { z } from "zod";
import type { Principal } from "@bouts/auth";
import { packTar } from "@bouts/archive";
import { HttpError } from "@bouts/edge";
import {
  ChallengeListSchema,
  ChallengeSchema,
  chooseFinalChoices,
  EntrySchema,
  enterVisibleChallenge,
  IngestHttpError,
  listVisibleChallenges,
  loadSubmitContext,
  readFinalChoices,
  readOwnSubmission,
  readVisibleChallenge,
  submitSolution,
  SubmissionSchema,
} from "@bouts/ingest";
import {
  LeaderboardPageSchema,
  MaxCostUsdSchema,
  PublicBreakdownSchema,
  readBreakdownView,
  readLeaderboard,
  readStanding,
  readVersion,
  resolveChallenge,
  StandingSchema,
  type LeaderboardEnv,
} from "@bouts/leaderboard";
import {
  deleteEndpoint,
  listEndpoints,
  RegisterWebhookBodySchema,
  registerEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
  WebhookEndpointSchema,
} from "@bouts/webhooks-worker";
import { SCORING_RULES_MARKDOWN } from "./scoring-rules.ts";

/** The Hono context of an MCP request, as the leaderboard reads take it. */
export type McpContext = Context<LeaderboardEnv>;

/** The verified agent an MCP request acts as. */
export type McpAgent = Extract<Principal, { role: "agent" }>;

/** The server's name and version, as `initialize` reports them. */
export const MCP_SERVER_INFO = { name: "bouts", version: "1.0.0" };

/** The longest a `wait_for_submission` call waits, in seconds. */
export const MAX_WAIT_SECONDS = 120;

/** How often a wait polls the submission, in milliseconds. */
const WAIT_POLL_MS = 1000;

/** The most files, and UTF-8 bytes in all, a `submit_solution` file map may hold. */
export const MAX_SUBMIT_FILES = 2000;

const SETTLED = new Set(["scored", "failed"]);

const Id = z.string().min(1).max(200);
const ChallengeRef = Id.describe("the challenge's id or slug, e.g. notes-api");
const SubmissionRef = Id.describe("a submission id, as submit_solution returned it");
const WebhookRef = z.string().regex(/^wh_[A-Za-z0-9_-]{1,64}$/, "a webhook id (wh_…)");

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
async function run(body: () => Promise<object>): Promise<CallToolResult> {
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

/** gzip through the platform's CompressionStream. */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([new Uint8Array(bytes)])
    .stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const SubmitInput = {
  challenge: ChallengeRef,
  files: z
    .record(z.string(), z.string())
    .refine((f) => Object.keys(f).length > 0, "at least one file")
    .refine((f) => Object.keys(f).length <= MAX_SUBMIT_FILES, `at most ${MAX_SUBMIT_FILES} files`)
    .describe(
      "the solution: path inside the archive → file content (UTF-8 text), e.g. " +
        '{ "app.mjs": "export function createApp() { … }", "NOTES.md": "…" }; packed into a ' +
        ".tar.gz and validated exactly like an uploaded archive (docs/archives.md)",
    ),
  trace: z.string().optional().describe("optional telemetry trace, JSONL (docs/telemetry.md)"),
  claims: z
    .array(z.unknown())
    .optional()
    .describe("optional confidence claims: [{ id, statement, confidence, tests? }]"),
  idempotencyKey: z
    .string()
    .optional()
    .describe("retrying with the same key and files replays the first answer (24 h)"),
};

const SubmitOutput = z.object({
  submission: SubmissionSchema,
  replayed: z.boolean().describe("true when this is the stored answer of an earlier call"),
});

const FinalChoicesOutput = z.object({
  challengeId: z.string(),
  submissionIds: z.array(z.string()).describe("the chosen submissions, oldest choice first"),
  limit: z.int().describe("how many the challenge allows"),
  fallback: z.literal("latest").describe("with no choice, the latest scored submission counts"),
});

const WaitOutput = z.object({
  submission: SubmissionSchema,
  settled: z.boolean().describe("scored or failed; false when the wait ran out first"),
});

/**
 * Builds the server for one request of the verified agent `principal`. Stateless: the server
 * lives as long as its request.
 */
export function createMcpServer(c: McpContext, principal: McpAgent): McpServer {
  const env = c.env;
  const origin = new URL(c.req.url).origin;
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { logging: {} },
    instructions:
      "Bouts scores AI coding agents' solutions to challenges. Read a challenge " +
      "(get_challenge: its description, deliverables and interface) and the scoring rules " +
      "(resource bouts://docs/scoring), enter it (enter_challenge), submit files " +
      "(submit_solution), wait for the score (wait_for_submission), then read the " +
      "breakdown (get_breakdown) and the leaderboard (get_leaderboard, get_my_standing).",
  });

  // ─── Challenges ───

  server.registerTool(
    "list_challenges",
    {
      title: "List challenges",
      description: "The published and closed challenges this agent may enter or read.",
      inputSchema: {},
      outputSchema: ChallengeListSchema,
      annotations: { readOnlyHint: true },
    },
    () => run(() => listVisibleChallenges(env, principal)),
  );

  server.registerTool(
    "get_challenge",
    {
      title: "Read a challenge",
      description:
        "One challenge: description, limits, deliverables (written files to include) and " +
        "interface (the module and functions or HTTP routes the tests load).",
      inputSchema: { challenge: ChallengeRef },
      outputSchema: ChallengeSchema,
      annotations: { readOnlyHint: true },
    },
    ({ challenge }) =>
      run(async () => {
        const view = await readVisibleChallenge(env, principal, challenge);
        if (!view.ok) throw new IngestHttpError(view.error);
        return view.value;
      }),
  );

  server.registerTool(
    "enter_challenge",
    {
      title: "Enter a challenge",
      description: "Enters a published challenge and starts the agent's clock; idempotent.",
      inputSchema: { challenge: ChallengeRef },
      outputSchema: z.object({ entry: EntrySchema, created: z.boolean() }),
      annotations: { idempotentHint: true },
    },
    ({ challenge }) => run(() => enterVisibleChallenge(env, principal, challenge)),
  );

  // ─── Submissions ───

  server.registerTool(
    "submit_solution",
    {
      title: "Submit a solution",
      description:
        "Submits files as one solution (scored asynchronously: then wait_for_submission). " +
        "Counts against the agent's iterations and submit rate limit like an upload.",
      inputSchema: SubmitInput,
      outputSchema: SubmitOutput,
    },
    (input) =>
      run(async () => {
        const idempotencyKey = input.idempotencyKey ?? null;
        const archive = await gzip(
          packTar(
            Object.entries(input.files).map(([path, text]) => ({
              path,
              data: new TextEncoder().encode(text),
            })),
          ),
        );
        const form = new FormData();
        form.set("archive", new Blob([new Uint8Array(archive)]), "solution.tar.gz");
        if (input.claims !== undefined) form.set("claims", JSON.stringify(input.claims));
        if (input.trace !== undefined) form.set("trace", new Blob([input.trace]), "trace.jsonl");
        const request = new Request(`${origin}/v1/challenges/submissions`, {
          method: "POST",
          body: form,
        });
        const context = await loadSubmitContext(
          env,
          principal.keyId,
          input.challenge,
          idempotencyKey,
        );
        if (!context) throw new IngestHttpError({ reason: "not-found", resource: "challenge" });
        const answer = await submitSolution(env, {
          principal,
          context,
          idempotencyKey,
          request,
          origin,
        });
        const body = JSON.parse(answer.body) as unknown;
        if (answer.status >= 400) {
          // A refusal recorded under the idempotency key: the same problem, replayed.
          throw new HttpError({ problem: body as HttpError["problem"], headers: {} });
        }
        return { submission: SubmissionSchema.parse(body), replayed: answer.replayed };
      }),
  );

  server.registerTool(
    "get_submission",
    {
      title: "Read a submission's status",
      description: "One of this agent's submissions: status, timestamps, failure reason.",
      inputSchema: { submission: SubmissionRef },
      outputSchema: SubmissionSchema,
      annotations: { readOnlyHint: true },
    },
    ({ submission }) => run(() => readOwnSubmission(env, principal, submission, origin)),
  );

  server.registerTool(
    "wait_for_submission",
    {
      title: "Wait for a submission's result",
      description:
        `Waits until the submission is scored or failed, at most timeoutSeconds (≤ ${MAX_WAIT_SECONDS}); ` +
        "sends a progress notification on every status change when the call has a progress " +
        "token. Returns settled: false when the wait ran out; call it again.",
      inputSchema: {
        submission: SubmissionRef,
        timeoutSeconds: z.int().min(1).max(MAX_WAIT_SECONDS).default(60),
      },
      outputSchema: WaitOutput,
      annotations: { readOnlyHint: true },
    },
    ({ submission, timeoutSeconds }, extra) =>
      run(async () => {
        const token = extra._meta?.progressToken;
        const steps = ["received", "queued", "running", "scored"];
        const deadline = Date.now() + timeoutSeconds * 1000;
        let last = "";
        for (;;) {
          const view = await readOwnSubmission(env, principal, submission, origin);
          const settled = SETTLED.has(view.status);
          if (view.status !== last && token !== undefined) {
            last = view.status;
            await extra.sendNotification({
              method: "notifications/progress",
              params: {
                progressToken: token,
                progress: Math.max(1, steps.indexOf(view.status) + 1, settled ? 4 : 0),
                total: 4,
                message: `submission ${view.id}: ${view.status}${view.waiting ? ` (${view.waiting.reason})` : ""}`,
              },
            });
          }
          if (settled || Date.now() + WAIT_POLL_MS > deadline || extra.signal.aborted)
            return { submission: view, settled };
          await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
        }
      }),
  );

  server.registerTool(
    "get_breakdown",
    {
      title: "Read a score breakdown",
      description:
        "A scored submission's breakdown: every component, weight, contribution and " +
        "adjustment; the owner view (private details) for this agent's own submissions.",
      inputSchema: { submission: SubmissionRef },
      outputSchema: PublicBreakdownSchema,
      annotations: { readOnlyHint: true },
    },
    ({ submission }) => run(() => readBreakdownView(c, submission, principal)),
  );

  // ─── Final choices (public/private boards, docs/design.md §29) ───

  server.registerTool(
    "get_final_choices",
    {
      title: "Read your final choices",
      description:
        "The submissions you chose to count on a split challenge's private board, the limit, " +
        "and the fallback (with no choice, your latest scored submission counts).",
      inputSchema: { challenge: ChallengeRef },
      outputSchema: FinalChoicesOutput,
      annotations: { readOnlyHint: true },
    },
    ({ challenge }) => run(() => readFinalChoices(env, principal, challenge)),
  );

  server.registerTool(
    "choose_final_submissions",
    {
      title: "Choose your final submissions",
      description:
        "Replaces your final choices before the challenge closes: up to its limit (default 2) " +
        "of your own scored submissions to it; [] clears them. The private board counts the " +
        "best of them on the full suite.",
      inputSchema: {
        challenge: ChallengeRef,
        submissionIds: z.array(Id).max(10).describe("your scored submissions to count"),
      },
      outputSchema: FinalChoicesOutput,
      annotations: { idempotentHint: true },
    },
    ({ challenge, submissionIds }) =>
      run(() => chooseFinalChoices(env, principal, challenge, submissionIds)),
  );

  // ─── The board ───

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

  // ─── Webhooks ───

  server.registerTool(
    "list_webhooks",
    {
      title: "List webhooks",
      description: "This agent's webhook endpoints and their health.",
      inputSchema: {},
      outputSchema: z.object({ endpoints: z.array(WebhookEndpointSchema) }),
      annotations: { readOnlyHint: true },
    },
    () => run(() => listEndpoints(env, principal)),
  );

  server.registerTool(
    "register_webhook",
    {
      title: "Register a webhook",
      description: "Registers an https endpoint for events; the signing secret is shown once.",
      inputSchema: RegisterWebhookBodySchema.shape,
      outputSchema: WebhookEndpointSchema.extend({ secret: z.string() }),
    },
    (body) => run(() => registerEndpoint(env, principal, body)),
  );

  server.registerTool(
    "delete_webhook",
    {
      title: "Delete a webhook",
      description: "Deletes one of this agent's endpoints with its delivery log.",
      inputSchema: { id: WebhookRef },
      outputSchema: z.object({ deleted: z.string() }),
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    ({ id }) =>
      run(async () => {
        await deleteEndpoint(env, principal, id);
        return { deleted: id };
      }),
  );

  server.registerTool(
    "rotate_webhook_secret",
    {
      title: "Rotate a webhook secret",
      description: "A new signing secret (shown once); the old one keeps signing for 24 h.",
      inputSchema: { id: WebhookRef },
      outputSchema: z.object({ secret: z.string(), previousSecretExpiresAt: z.string() }),
    },
    ({ id }) => run(() => rotateEndpointSecret(env, principal, id)),
  );

  server.registerTool(
    "test_webhook",
    {
      title: "Send a test event",
      description: "Queues a webhook.test event to the endpoint (within the test quotas).",
      inputSchema: { id: WebhookRef },
      outputSchema: z.object({ messageId: z.string(), eventId: z.string() }),
    },
    ({ id }) => run(() => sendTestEvent(env, principal, id)),
  );

  // ─── Resources ───

  server.registerResource(
    "scoring-rules",
    "bouts://docs/scoring",
    {
      title: "How Bouts scores a submission",
      description: "docs/scoring.md: the components, weights, adjustments and rounding.",
      mimeType: "text/markdown",
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: SCORING_RULES_MARKDOWN }],
    }),
  );

  server.registerResource(
    "challenge",
    new ResourceTemplate("bouts://challenges/{slug}", {
      list: async () => {
        const { challenges } = await listVisibleChallenges(env, principal);
        return {
          resources: challenges.map((ch) => ({
            uri: `bouts://challenges/${ch.slug}`,
            name: ch.slug,
            title: ch.title,
            mimeType: "text/markdown",
          })),
        };
      },
    }),
    {
      title: "A challenge's description",
      description: "What to build: the description, deliverables, interface and limits.",
      mimeType: "text/markdown",
    },
    async (uri, { slug }) => {
      const view = await readVisibleChallenge(env, principal, String(slug));
      if (!view.ok) throw new Error(`No such challenge: ${String(slug)}`);
      return {
        contents: [
          { uri: uri.href, mimeType: "text/markdown", text: describeChallenge(view.value) },
        ],
      };
    },
  );

  return server;
}

/** A challenge as the markdown of its resource. */
export function describeChallenge(ch: z.infer<typeof ChallengeSchema>): string {
  const deliverables = ch.deliverables.length
    ? ch.deliverables
        .map((d) => `- \`${d.path}\`${d.required ? " (required)" : ""}: ${d.description}`)
        .join("\n")
    : "- none";
  return [
    `# ${ch.title} (\`${ch.slug}\`)`,
    "",
    ch.description,
    "",
    `Status: ${ch.status}. Profile: ${ch.profile}. Runtime: ${ch.runtime ?? "unknown"}. ` +
      `At most ${ch.maxIterations} submissions; archives up to ${ch.limits.maxArchiveBytes} bytes.`,
    "",
    "## Deliverables",
    "",
    deliverables,
    "",
    "## Interface",
    "",
    "```json",
    JSON.stringify(ch.interface, null, 2),
    "```",
    "",
    "Scoring rules: bouts://docs/scoring",
    "",
  ].join("\n");
}
