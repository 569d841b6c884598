/**
 * @module telemetry/parse-otel
 * Maps an OTLP/JSON trace export whose spans follow the OpenTelemetry GenAI semantic conventions
 * onto `bouts.trace/v1` events (the mapping: docs/telemetry.md, "OpenTelemetry GenAI spans").
 * Invariants: all-or-nothing; a wrong attribute type on a key we read refuses the trace naming the
 * span (0-based, export order) and the key; events are ordered by span start time, ties by export
 * order, and numbered 1…n; other spans only count in `ignoredSpans`. Never throws; pure (zod only).
 */
import { err, ok, type Result } from "@bouts/result";
import { z } from "zod";
import { describeIssue, type TraceError } from "./errors.ts";
import { clip, digestText } from "./text.ts";
import {
  checkEventConsistency,
  TRACE_FORMAT,
  TraceEventSchema,
  type Trace,
  type TraceEvent,
  type TraceHeader,
  type TraceLimits,
} from "./trace.ts";

// ─── OTLP/JSON shapes (lenient on keys we do not read) ───

const nanos = z.union([
  z.string().regex(/^\d{1,20}$/, "unix nanoseconds as digits"),
  z.int().min(0),
]);

const AnyValueSchema = z.object({
  stringValue: z.string().optional(),
  boolValue: z.boolean().optional(),
  intValue: z.union([z.string().regex(/^-?\d{1,20}$/), z.int()]).optional(),
  doubleValue: z.number().optional(),
  arrayValue: z.object({ values: z.array(z.unknown()).optional() }).optional(),
  kvlistValue: z.unknown().optional(),
  bytesValue: z.string().optional(),
});
type AnyValue = z.infer<typeof AnyValueSchema>;

const KeyValueSchema = z.object({ key: z.string().min(1), value: AnyValueSchema });

const SpanSchema = z.object({
  spanId: z.string().min(1).max(64),
  name: z.string().max(1000).optional(),
  startTimeUnixNano: nanos,
  endTimeUnixNano: nanos.optional(),
  attributes: z.array(KeyValueSchema).max(1000).optional(),
  status: z
    .object({
      code: z.union([z.int().min(0).max(2), z.string().max(40)]).optional(),
      message: z.string().optional(),
    })
    .optional(),
});
type Span = z.infer<typeof SpanSchema>;

const ExportSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: z.array(KeyValueSchema).optional() }).optional(),
      scopeSpans: z.array(z.object({ spans: z.array(z.unknown()).optional() })).optional(),
    }),
  ),
});

/** GenAI operations mapped to assistant messages (model calls that burn tokens). */
export const OTEL_MODEL_OPERATIONS = [
  "chat",
  "text_completion",
  "generate_content",
  "embeddings",
] as const;

/**
 * The GenAI operation mapped to tool calls, or to edits and test runs when the span carries
 * `bouts.edit.*` / `bouts.test.*` attributes.
 */
export const OTEL_TOOL_OPERATION = "execute_tool";

// ─── Attribute access with type checks ───

type Attrs = Map<string, AnyValue>;
type Typed<T> = Result<T | undefined, { field: string; detail: string }>;

const kindOf = (v: AnyValue): string =>
  (Object.keys(v).find((k) => (v as Record<string, unknown>)[k] !== undefined) ?? "no value") + "";

function typeError<T>(key: string, want: string, v: AnyValue): Typed<T> {
  return err({ field: `attributes.${key}`, detail: `expected ${want}, got ${kindOf(v)}` });
}

function readString(a: Attrs, key: string): Typed<string> {
  const v = a.get(key);
  if (v === undefined) return ok(undefined);
  return typeof v.stringValue === "string" ? ok(v.stringValue) : typeError(key, "stringValue", v);
}

function readInt(a: Attrs, key: string): Typed<number> {
  const v = a.get(key);
  if (v === undefined) return ok(undefined);
  const raw = v.intValue;
  const n = typeof raw === "string" ? Number(raw) : raw;
  if (n === undefined || !Number.isSafeInteger(n) || n < 0)
    return typeError(key, "a non-negative intValue", v);
  return ok(n);
}

function readBool(a: Attrs, key: string): Typed<boolean> {
  const v = a.get(key);
  if (v === undefined) return ok(undefined);
  return typeof v.boolValue === "boolean" ? ok(v.boolValue) : typeError(key, "boolValue", v);
}

function readStrings(a: Attrs, key: string): Typed<string[]> {
  const v = a.get(key);
  if (v === undefined) return ok(undefined);
  const values = v.arrayValue?.values;
  if (!values) return typeError(key, "an arrayValue of stringValue", v);
  const out: string[] = [];
  for (const item of values) {
    const s = (item as { stringValue?: unknown } | null)?.stringValue;
    if (typeof s !== "string")
      return err({
        field: `attributes.${key}`,
        detail: "every array element must be a stringValue",
      });
    out.push(s);
  }
  return ok(out);
}

function toAttrs(list: readonly { key: string; value: AnyValue }[] | undefined): Attrs {
  const m: Attrs = new Map();
  for (const kv of list ?? []) m.set(kv.key, kv.value);
  return m;
}

const MAX_DATE_MS = 8.64e15;

function nanosToIso(n: string | number): Result<string, string> {
  const ms = Number(BigInt(n) / 1_000_000n);
  if (ms > MAX_DATE_MS) return err("timestamp out of range");
  return ok(new Date(ms).toISOString());
}

function isError(span: Span, attrs: Attrs): boolean {
  const code = span.status?.code;
  return code === 2 || code === "STATUS_CODE_ERROR" || attrs.has("error.type");
}

// ─── Span → event ───

type SpanFailure = { field: string; detail: string };
type Mapped = { kind: "event"; event: Omit<TraceEvent, "seq"> } | { kind: "ignored" };

/** Reads every attribute a mapping needs, failing on the first wrong type. */
function mapSpan(span: Span): Result<Mapped, SpanFailure> {
  const a = toAttrs(span.attributes);
  const op = readString(a, "gen_ai.operation.name");
  if (!op.ok) return op;
  const start = nanosToIso(span.startTimeUnixNano);
  if (!start.ok) return err({ field: "startTimeUnixNano", detail: start.error });
  const ts = start.value;
  let durationMs: number | undefined;
  if (span.endTimeUnixNano !== undefined) {
    const d = BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano);
    if (d < 0n) return err({ field: "endTimeUnixNano", detail: "ends before it starts" });
    durationMs = Math.min(Number(d) / 1e6, 86_400_000);
  }
  const tokensIn = readInt(a, "gen_ai.usage.input_tokens");
  if (!tokensIn.ok) return tokensIn;
  const tokensOut = readInt(a, "gen_ai.usage.output_tokens");
  if (!tokensOut.ok) return tokensOut;
  // The model that answered, else the one asked for (semantic conventions: response wins).
  const responseModel = readString(a, "gen_ai.response.model");
  if (!responseModel.ok) return responseModel;
  const requestModel = readString(a, "gen_ai.request.model");
  if (!requestModel.ok) return requestModel;
  const spanModel = responseModel.value ?? requestModel.value;
  const usage = {
    ...(tokensIn.value !== undefined ? { tokensIn: tokensIn.value } : {}),
    ...(tokensOut.value !== undefined ? { tokensOut: tokensOut.value } : {}),
    ...(spanModel ? { model: clip(spanModel, 200) } : {}),
  };
  const timing = durationMs !== undefined ? { durationMs } : {};

  if ((OTEL_MODEL_OPERATIONS as readonly string[]).includes(op.value ?? "")) {
    const text = readString(a, "bouts.message.text");
    if (!text.ok) return text;
    const final = readBool(a, "bouts.message.final");
    if (!final.ok) return final;
    return ok({
      kind: "event",
      event: {
        type: "message",
        ts,
        role: "assistant",
        ...usage,
        ...(text.value !== undefined ? { text: text.value } : {}),
        ...(final.value !== undefined ? { final: final.value } : {}),
      },
    });
  }
  if (op.value !== OTEL_TOOL_OPERATION) return ok({ kind: "ignored" });

  const name = readString(a, "gen_ai.tool.name");
  if (!name.ok) return name;
  if (name.value === undefined)
    return err({ field: "attributes.gen_ai.tool.name", detail: "required on execute_tool spans" });
  const failed = isError(span, a);

  const editPath = readString(a, "bouts.edit.path");
  if (!editPath.ok) return editPath;
  if (editPath.value !== undefined) {
    const kind = readString(a, "bouts.edit.kind");
    if (!kind.ok) return kind;
    const bytes = readInt(a, "bouts.edit.bytes");
    if (!bytes.ok) return bytes;
    const patch = readString(a, "bouts.edit.patch");
    if (!patch.ok) return patch;
    const before = readString(a, "bouts.edit.before");
    if (!before.ok) return before;
    const after = readString(a, "bouts.edit.after");
    if (!after.ok) return after;
    return ok({
      kind: "event",
      event: {
        type: "edit",
        ts,
        path: editPath.value,
        kind: kind.value as "create",
        ...(bytes.value !== undefined ? { bytes: bytes.value } : {}),
        ...(patch.value !== undefined ? { patch: patch.value } : {}),
        ...(before.value !== undefined ? { before: before.value } : {}),
        ...(after.value !== undefined ? { after: after.value } : {}),
        ...usage,
        ...timing,
      },
    });
  }

  const command = readString(a, "bouts.test.command");
  if (!command.ok) return command;
  if (command.value !== undefined) {
    const passed = readInt(a, "bouts.test.passed");
    if (!passed.ok) return passed;
    const failedCount = readInt(a, "bouts.test.failed");
    if (!failedCount.ok) return failedCount;
    const tests = readStrings(a, "bouts.test.ids");
    if (!tests.ok) return tests;
    const failedTests = readStrings(a, "bouts.test.failed_ids");
    if (!failedTests.ok) return failedTests;
    return ok({
      kind: "event",
      event: {
        type: "test_run",
        ts,
        command: command.value,
        passed: passed.value as number,
        failed: failedCount.value as number,
        outcome: failed ? "error" : "ok",
        ...(tests.value !== undefined ? { tests: tests.value } : {}),
        ...(failedTests.value !== undefined ? { failedTests: failedTests.value } : {}),
        ...timing,
      },
    });
  }

  const digest = readString(a, "bouts.tool.args_digest");
  if (!digest.ok) return digest;
  const args = readString(a, "gen_ai.tool.call.arguments");
  if (!args.ok) return args;
  const callId = readString(a, "gen_ai.tool.call.id");
  if (!callId.ok) return callId;
  const category = readString(a, "bouts.tool.category");
  if (!category.ok) return category;
  const paths = readStrings(a, "bouts.tool.paths");
  if (!paths.ok) return paths;
  // Without arguments no two calls can be shown identical: the span id keeps each unique.
  const argsDigest =
    digest.value ??
    (args.value !== undefined ? digestText(args.value) : `span:${span.spanId.slice(0, 64)}`);
  return ok({
    kind: "event",
    event: {
      type: "tool_call",
      ts,
      name: name.value,
      argsDigest,
      ...(args.value !== undefined ? { args: clip(args.value, 4096) } : {}),
      outcome: failed ? "error" : "ok",
      ...(category.value !== undefined ? { category: category.value as "other" } : {}),
      ...(paths.value !== undefined ? { paths: paths.value } : {}),
      ...(callId.value !== undefined ? { callId: callId.value } : {}),
      ...usage,
      ...timing,
    },
  });
}

/**
 * Maps one or more parsed OTLP/JSON export documents (a file exporter writes one per line)
 * onto a trace. Spans are indexed across all documents in export order.
 */
export function parseOtelTrace(
  documents: readonly unknown[],
  limits: TraceLimits,
): Result<Trace, TraceError> {
  const spans: { span: Span; index: number }[] = [];
  let service: string | undefined;
  let challengeId: string | undefined;
  let model: string | undefined;
  let index = 0;
  for (const [d, doc] of documents.entries()) {
    const parsed = ExportSchema.safeParse(doc);
    if (!parsed.success) {
      const { field, detail } = describeIssue(parsed.error);
      const where = documents.length > 1 ? `document ${d + 1}: ` : "";
      return err({ reason: "bad-otel", field: `${where}${field}`, detail });
    }
    for (const rs of parsed.data.resourceSpans) {
      const res = toAttrs(rs.resource?.attributes);
      service ??= res.get("service.name")?.stringValue;
      challengeId ??= res.get("bouts.challenge.id")?.stringValue;
      for (const ss of rs.scopeSpans ?? [])
        for (const raw of ss.spans ?? []) {
          if (index >= limits.maxEvents)
            return err({
              reason: "too-many-events",
              limit: "maxEvents",
              max: limits.maxEvents,
              detail: `more than ${limits.maxEvents} spans`,
            });
          const span = SpanSchema.safeParse(raw);
          if (!span.success)
            return err({ reason: "bad-span", span: index, ...describeIssue(span.error) });
          spans.push({ span: span.data, index });
          model ??= toAttrs(span.data.attributes).get("gen_ai.request.model")?.stringValue;
          index++;
        }
    }
  }

  const ordered = [...spans].sort((x, y) => {
    const a = BigInt(x.span.startTimeUnixNano);
    const b = BigInt(y.span.startTimeUnixNano);
    return a < b ? -1 : a > b ? 1 : x.index - y.index;
  });
  const events: TraceEvent[] = [];
  let ignoredSpans = 0;
  for (const { span, index: i } of ordered) {
    const mapped = mapSpan(span);
    if (!mapped.ok) return err({ reason: "bad-span", span: i, ...mapped.error });
    if (mapped.value.kind === "ignored") {
      ignoredSpans++;
      continue;
    }
    const event = TraceEventSchema.safeParse({ ...mapped.value.event, seq: events.length + 1 });
    if (!event.success) {
      const { field, detail } = describeIssue(event.error);
      return err({ reason: "bad-span", span: i, field: attributeOf(field), detail });
    }
    const inconsistent = checkEventConsistency(event.data);
    if (inconsistent)
      return err({
        reason: "bad-span",
        span: i,
        ...inconsistent,
        field: attributeOf(inconsistent.field),
      });
    events.push(event.data);
  }

  const first = ordered[0];
  const header: TraceHeader = { format: TRACE_FORMAT };
  if (service) header.agent = clip(service, 200);
  if (model) header.model = clip(model, 200);
  if (challengeId && challengeId.length <= 64) header.challengeId = challengeId;
  if (first) {
    const started = nanosToIso(first.span.startTimeUnixNano);
    if (started.ok) header.startedAt = started.value;
  }
  return ok({ format: TRACE_FORMAT, source: "otel", header, events, ignoredSpans });
}

/** The OTel attribute behind an internal event field, so errors name what the exporter wrote. */
const FIELD_ATTRIBUTES: Record<string, string> = {
  name: "gen_ai.tool.name",
  argsDigest: "bouts.tool.args_digest",
  args: "gen_ai.tool.call.arguments",
  callId: "gen_ai.tool.call.id",
  category: "bouts.tool.category",
  paths: "bouts.tool.paths",
  tokensIn: "gen_ai.usage.input_tokens",
  tokensOut: "gen_ai.usage.output_tokens",
  model: "gen_ai.response.model",
  path: "bouts.edit.path",
  kind: "bouts.edit.kind",
  bytes: "bouts.edit.bytes",
  before: "bouts.edit.before",
  after: "bouts.edit.after",
  patch: "bouts.edit.patch",
  command: "bouts.test.command",
  passed: "bouts.test.passed",
  failed: "bouts.test.failed",
  tests: "bouts.test.ids",
  failedTests: "bouts.test.failed_ids",
  text: "bouts.message.text",
  final: "bouts.message.final",
};

function attributeOf(field: string): string {
  const head = field.split(".")[0] ?? field;
  const attr = FIELD_ATTRIBUTES[head];
  return attr ? `attributes.${attr}` : field;
}
