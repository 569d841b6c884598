/**
 * @module telemetry/trace
 * The internal trace model (`bouts.trace/v1`): one header and an ordered list of events —
 * tool calls, file edits, test runs and messages — each with a sequence number and a
 * timestamp. Both input formats (our JSONL, OpenTelemetry GenAI spans) are mapped onto it.
 * Invariants: events are sorted by strictly increasing `seq`; every string is bounded; the
 * zod schemas here are the only definition of a valid event. Pure: zod only.
 */
import { z } from "zod";

/** The format tag of the first JSONL line and of every parsed trace. */
export const TRACE_FORMAT = "bouts.trace/v1";

/** Size limits applied while parsing; each may be lowered (or raised) per call. */
export interface TraceLimits {
  /** Maximum size of the whole trace in UTF-8 bytes. */
  maxBytes: number;
  /** Maximum number of events (JSONL lines after the header, or OTel spans). */
  maxEvents: number;
  /** Maximum length of one JSONL line in characters. */
  maxLineLength: number;
}

/** Defaults: 8 MiB, 20 000 events, 64 KiB per line (documented in docs/telemetry.md). */
export const DEFAULT_TRACE_LIMITS: Readonly<TraceLimits> = {
  maxBytes: 8 * 1024 * 1024,
  maxEvents: 20_000,
  maxLineLength: 64 * 1024,
};

// ─── Field schemas ───

const seq = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const ts = z.iso.datetime({ offset: true });
const tokens = z.int().min(0).max(1_000_000_000);
const path = z.string().min(1).max(1024);
const digest = z.string().min(1).max(128);
const name = z.string().min(1).max(200);
/** The model that spent an event's tokens (overrides the header's `model` for that event). */
const model = z.string().min(1).max(200);

/** A tool call's result: `error` when the tool failed or refused. */
export const OutcomeSchema = z.enum(["ok", "error"]);
export type Outcome = z.infer<typeof OutcomeSchema>;

/** Optional hint of what a tool does; `network` calls count as network attempts. */
export const ToolCategorySchema = z.enum(["read", "search", "exec", "network", "other"]);
export type ToolCategory = z.infer<typeof ToolCategorySchema>;

/** A tool call: name, digest of its arguments, outcome, tokens, duration. */
export const ToolCallEventSchema = z.strictObject({
  type: z.literal("tool_call"),
  seq,
  ts,
  name,
  /** Digest of the canonical arguments; equal digests mean identical calls. */
  argsDigest: digest,
  /** Optional bounded preview of the arguments (used for path and network evidence). */
  args: z.string().max(4096).optional(),
  outcome: OutcomeSchema,
  category: ToolCategorySchema.optional(),
  /** Files the call read or touched, relative to the workspace. */
  paths: z.array(path).max(100).optional(),
  tokensIn: tokens.optional(),
  tokensOut: tokens.optional(),
  model: model.optional(),
  durationMs: z.number().min(0).max(86_400_000).optional(),
  callId: z.string().min(1).max(200).optional(),
});
export type ToolCallEvent = z.infer<typeof ToolCallEventSchema>;

/** Digest of a file's content, or null for "the file does not exist". */
const contentDigest = digest.nullable();

/** A file edit. `before`/`after` digests let reverts be detected; `patch` lets tampering be. */
export const EditEventSchema = z.strictObject({
  type: z.literal("edit"),
  seq,
  ts,
  path,
  kind: z.enum(["create", "modify", "delete"]),
  bytes: z.int().min(0).max(1_000_000_000).optional(),
  before: contentDigest.optional(),
  after: contentDigest.optional(),
  /** Unified diff of the edit (lines starting with + and -), bounded. */
  patch: z.string().max(65_536).optional(),
  tokensIn: tokens.optional(),
  tokensOut: tokens.optional(),
  model: model.optional(),
  durationMs: z.number().min(0).max(86_400_000).optional(),
});
export type EditEvent = z.infer<typeof EditEventSchema>;

/** A test run: the command, which tests (absent = the whole suite), and the counts. */
export const TestRunEventSchema = z.strictObject({
  type: z.literal("test_run"),
  seq,
  ts,
  command: z.string().min(1).max(2000),
  tests: z.array(z.string().min(1).max(300)).max(1000).optional(),
  passed: z.int().min(0),
  failed: z.int().min(0),
  /** `error` when the suite could not run at all (missing runner, syntax error, …). */
  outcome: OutcomeSchema.default("ok"),
  failedTests: z.array(z.string().min(1).max(300)).max(1000).optional(),
  durationMs: z.number().min(0).max(86_400_000).optional(),
});
export type TestRunEvent = z.infer<typeof TestRunEventSchema>;

/** A confidence statement attached to a message: the structured claim shape. */
export const MessageClaimSchema = z.strictObject({
  statement: z.string().min(1).max(1000),
  confidence: z.union([z.number().min(0).max(1), z.literal("uncertain")]),
  tests: z.array(z.string().min(1).max(300)).max(200).optional(),
});
export type MessageClaim = z.infer<typeof MessageClaimSchema>;

/** A message. `final: true` marks the agent's final report (disclosures are read from it). */
export const MessageEventSchema = z.strictObject({
  type: z.literal("message"),
  seq,
  ts,
  role: z.enum(["system", "user", "assistant", "tool"]),
  tokensIn: tokens.optional(),
  tokensOut: tokens.optional(),
  model: model.optional(),
  text: z.string().max(65_536).optional(),
  final: z.boolean().optional(),
  confidence: z.array(MessageClaimSchema).max(100).optional(),
});
export type MessageEvent = z.infer<typeof MessageEventSchema>;

/** Any event of a trace, discriminated by `type`. */
export const TraceEventSchema = z.discriminatedUnion("type", [
  ToolCallEventSchema,
  EditEventSchema,
  TestRunEventSchema,
  MessageEventSchema,
]);
export type TraceEvent = z.infer<typeof TraceEventSchema>;
export type TraceEventType = TraceEvent["type"];

/** The JSONL header line. Unknown keys are rejected so that typos surface. */
export const TraceHeaderSchema = z.strictObject({
  format: z.literal(TRACE_FORMAT),
  agent: z.string().min(1).max(200).optional(),
  model: z.string().min(1).max(200).optional(),
  challengeId: z.string().min(1).max(64).optional(),
  startedAt: ts.optional(),
});
export type TraceHeader = z.infer<typeof TraceHeaderSchema>;

/** A parsed, validated trace. `source` says which input format it came from. */
export interface Trace {
  format: typeof TRACE_FORMAT;
  source: "jsonl" | "otel";
  header: TraceHeader;
  events: TraceEvent[];
  /** OTel spans that carry no GenAI operation we map (HTTP spans, agent wrappers, …). */
  ignoredSpans: number;
}

/**
 * Checks what the schema alone cannot: an edit's digests agree with its kind (a create had
 * no file before it, a delete leaves none), a test run lists no more failed tests than it
 * counts. Returns the offending field and why, or null.
 */
export function checkEventConsistency(e: TraceEvent): { field: string; detail: string } | null {
  if (e.type === "edit") {
    if (e.kind === "create" && typeof e.before === "string")
      return { field: "before", detail: "a create has no content before it (omit or null)" };
    if (e.kind === "delete" && typeof e.after === "string")
      return { field: "after", detail: "a delete leaves no content (omit or null)" };
  }
  if (e.type === "test_run" && e.failedTests && e.failedTests.length > e.failed)
    return {
      field: "failedTests",
      detail: `lists ${e.failedTests.length} failed tests but failed is ${e.failed}`,
    };
  return null;
}

/** Event types that count as actions for efficiency; messages are not actions. */
export const ACTION_TYPES: readonly TraceEventType[] = ["tool_call", "edit", "test_run"];

/** True when the event is an action (tool call, edit or test run). */
export const isAction = (e: TraceEvent): e is ToolCallEvent | EditEvent | TestRunEvent =>
  e.type !== "message";
