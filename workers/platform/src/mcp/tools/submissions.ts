/**
 * @module platform/mcp/tools/submissions
 * The submission tools: submit, read, wait and read the breakdown. Invariants: the submit tool
 * packs the file map into a .tar.gz (`packTar`, which checks nothing) and hands it to ingest's
 * upload path, so the archive validator is the one set of rules; a wait is bounded
 * (`MAX_WAIT_SECONDS`) and stops when its call is cancelled.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { packTar } from "@bouts/archive";
import { HttpError } from "@bouts/edge";
import {
  IngestHttpError,
  loadSubmitContext,
  readOwnSubmission,
  submitSolution,
  SubmissionSchema,
} from "@bouts/ingest";
import { PublicBreakdownSchema, readBreakdownView } from "@bouts/leaderboard";
import type { McpRequestScope } from "../context.ts";
import { ChallengeRef, run, SubmissionRef } from "./tool-result.ts";

/** The longest a `wait_for_submission` call waits, in seconds. */
export const MAX_WAIT_SECONDS = 120;

/** How often a wait polls the submission, in milliseconds. */
const WAIT_POLL_MS = 1000;

/** The most files, and UTF-8 bytes in all, a `submit_solution` file map may hold. */
export const MAX_SUBMIT_FILES = 2000;

const SETTLED = new Set(["scored", "failed"]);

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

type SubmitArgs = z.infer<z.ZodObject<typeof SubmitInput>>;

const SubmitOutput = z.object({
  submission: SubmissionSchema,
  replayed: z.boolean().describe("true when this is the stored answer of an earlier call"),
});

const WaitOutput = z.object({
  submission: SubmissionSchema,
  settled: z.boolean().describe("scored or failed; false when the wait ran out first"),
});

/** gzip through the platform's CompressionStream. */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([new Uint8Array(bytes)])
    .stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The upload request a file map stands for: the packed archive, the claims and the trace. */
async function buildUploadRequest(input: SubmitArgs, origin: string): Promise<Request> {
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
  return new Request(`${origin}/v1/challenges/submissions`, { method: "POST", body: form });
}

/** Submits a file map through the upload path, as the agent of `scope`. */
async function submitFiles(scope: McpRequestScope, input: SubmitArgs) {
  const { env, principal, origin } = scope;
  const idempotencyKey = input.idempotencyKey ?? null;
  const request = await buildUploadRequest(input, origin);
  const context = await loadSubmitContext(env, principal.keyId, input.challenge, idempotencyKey);
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
}

/** The SDK's handler context of a tool call: progress token, notifier, cancel signal. */
type ToolCall = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Polls a submission until it settles or the time runs out, reporting each status change. */
async function waitForSubmission(
  { env, principal, origin }: McpRequestScope,
  submission: string,
  timeoutSeconds: number,
  extra: ToolCall,
) {
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
}

/** Registers submit_solution, get_submission, wait_for_submission and get_breakdown. */
export function registerSubmissionTools(server: McpServer, scope: McpRequestScope) {
  const { c, env, principal, origin } = scope;
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
    (input) => run(() => submitFiles(scope, input)),
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
      run(() => waitForSubmission(scope, submission, timeoutSeconds, extra)),
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
}
