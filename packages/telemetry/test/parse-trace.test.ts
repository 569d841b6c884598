/**
 * parseTrace: format detection, both formats, and every refusal path (each names the line
 * or the span and what is wrong). Never a throw, never a partial parse.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatTraceError, parseTrace, type TraceError } from "../src/index.ts";
import { edit, message, testRun, toJsonl, tool } from "./build.ts";

const valid = [
  tool(1, "read_file", '{"path":"src/a.ts"}', { tokensIn: 100, tokensOut: 20, durationMs: 12 }),
  edit(2, "src/a.ts", "modify", { bytes: 120, before: "h1", after: "h2" }),
  testRun(3, 9, 1, { tests: ["a", "b"], failedTests: ["b"] }),
  message(4, "assistant", { tokensIn: 500, tokensOut: 80, text: "done", final: true }),
];

function refuse(text: string, limits?: Parameters<typeof parseTrace>[1]): TraceError {
  const r = parseTrace(text, limits);
  if (r.ok) throw new Error("expected a refusal");
  return r.error;
}

describe("parseTrace — bouts.trace/v1 JSONL", () => {
  it("parses a header and all four event types", () => {
    const r = parseTrace(
      toJsonl(valid, { format: "bouts.trace/v1", agent: "a", model: "m", challengeId: "c1" }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.source).toBe("jsonl");
    expect(r.value.header).toEqual({
      format: "bouts.trace/v1",
      agent: "a",
      model: "m",
      challengeId: "c1",
    });
    expect(r.value.events.map((e) => e.type)).toEqual(["tool_call", "edit", "test_run", "message"]);
    expect(r.value.events[2]).toMatchObject({ passed: 9, failed: 1, outcome: "ok" });
  });

  it("defaults a test run's outcome to ok", () => {
    const { outcome: _drop, ...noOutcome } = testRun(1, 1, 0);
    const r = parseTrace(toJsonl([noOutcome]));
    expect(r.ok && r.value.events[0]).toMatchObject({ outcome: "ok" });
  });

  it("tolerates CRLF, a BOM, blank lines and a header with no events", () => {
    const text = "\uFEFF" + toJsonl(valid).replace(/\n/g, "\r\n\r\n");
    const r = parseTrace(text);
    expect(r.ok && r.value.events.length).toBe(4);
    const empty = parseTrace('{"format":"bouts.trace/v1"}');
    expect(empty.ok && empty.value.events).toEqual([]);
  });

  it("refuses an unknown format version on line 1", () => {
    const e = refuse(toJsonl(valid, { format: "bouts.trace/v2" }));
    expect(e).toMatchObject({ reason: "bad-header", line: 1 });
    expect(formatTraceError(e)).toContain('format must be "bouts.trace/v1", got "bouts.trace/v2"');
  });

  it("refuses a header with an unknown key or that is not JSON", () => {
    expect(refuse(toJsonl(valid, { format: "bouts.trace/v1", agnet: "x" }))).toMatchObject({
      reason: "bad-header",
      line: 1,
    });
    expect(refuse('{"format": "bouts.trace/v1",\n{}')).toMatchObject({
      reason: "bad-header",
      line: 1,
    });
  });

  it("refuses a trace whose first line is an event, not the header", () => {
    const text = valid.map((e) => JSON.stringify(e)).join("\n");
    expect(refuse(text)).toMatchObject({ reason: "bad-header", line: 1 });
  });

  it("names the line that is not JSON", () => {
    const lines = toJsonl(valid).split("\n");
    lines[2] = '{"type": "edit",';
    const e = refuse(lines.join("\n"));
    expect(e).toMatchObject({ reason: "bad-json", line: 3 });
    expect(formatTraceError(e)).toMatch(/^line 3: /);
  });

  it("names the line and field of an invalid event", () => {
    const bad = [...valid];
    bad[3] = { ...tool(4, "x"), outcome: "maybe" } as never;
    expect(refuse(toJsonl(bad))).toMatchObject({ reason: "bad-event", line: 5, field: "outcome" });
    expect(refuse(toJsonl([{ ...tool(1, "x"), extra: 1 }]))).toMatchObject({
      reason: "bad-event",
      line: 2,
    });
    expect(refuse(toJsonl([{ type: "teleport", seq: 1 }]))).toMatchObject({
      reason: "bad-event",
      line: 2,
      field: "type",
    });
    expect(refuse(toJsonl([{ ...tool(1, "x"), ts: "yesterday" }]))).toMatchObject({
      reason: "bad-event",
      field: "ts",
    });
    expect(refuse(toJsonl([{ ...tool(1, "x"), tokensIn: -1 }]))).toMatchObject({
      reason: "bad-event",
      field: "tokensIn",
    });
  });

  it("keeps the file's own line numbers across blank lines", () => {
    const text = toJsonl([tool(1, "a")]) + "\n\n" + "{oops}\n";
    expect(refuse(text)).toMatchObject({ reason: "bad-json", line: 5 });
  });

  it("refuses edits and test runs that contradict themselves", () => {
    expect(refuse(toJsonl([edit(1, "a.ts", "create", { before: "d1" })]))).toMatchObject({
      reason: "bad-event",
      line: 2,
      field: "before",
    });
    expect(refuse(toJsonl([edit(1, "a.ts", "delete", { after: "d1" })]))).toMatchObject({
      field: "after",
    });
    expect(refuse(toJsonl([testRun(1, 3, 1, { failedTests: ["a", "b"] })]))).toMatchObject({
      field: "failedTests",
    });
  });

  it("refuses a sequence number that does not increase", () => {
    const e = refuse(toJsonl([tool(5, "a"), tool(5, "b")]));
    expect(e).toMatchObject({ reason: "bad-sequence", line: 3 });
    expect(formatTraceError(e)).toBe("line 3: seq 5 does not increase (previous 5)");
  });

  it("refuses a trace over maxBytes, counting UTF-8 bytes", () => {
    const text = toJsonl([tool(1, "é".repeat(60))]);
    const bytes = new TextEncoder().encode(text).length;
    expect(refuse(text, { limits: { maxBytes: bytes - 1 } })).toMatchObject({
      reason: "too-large",
      max: bytes - 1,
      actual: bytes,
    });
    expect(parseTrace(text, { limits: { maxBytes: bytes } }).ok).toBe(true);
    expect(refuse("x".repeat(101), { limits: { maxBytes: 100 } })).toMatchObject({
      reason: "too-large",
    });
  });

  it("refuses more events than maxEvents", () => {
    const events = [1, 2, 3].map((i) => tool(i, "t"));
    expect(refuse(toJsonl(events), { limits: { maxEvents: 2 } })).toMatchObject({
      reason: "too-many-events",
      max: 2,
    });
    expect(parseTrace(toJsonl(events), { limits: { maxEvents: 3 } }).ok).toBe(true);
  });

  it("refuses a line longer than maxLineLength, naming it", () => {
    const text = toJsonl([tool(1, "a"), tool(2, "b", "x".repeat(500))]);
    expect(refuse(text, { limits: { maxLineLength: 400 } })).toMatchObject({
      reason: "line-too-long",
      line: 3,
      max: 400,
    });
  });

  it("refuses an empty text and an unknown format", () => {
    expect(refuse("  \n ")).toMatchObject({ reason: "empty" });
    expect(refuse("hello world")).toMatchObject({ reason: "unknown-format" });
    expect(refuse("[1, 2, 3]")).toMatchObject({ reason: "unknown-format" });
  });
});

// ─── OpenTelemetry ───

type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const n = (key: string, v: number): Attr => ({ key, value: { intValue: String(v) } });
const b = (key: string, v: boolean): Attr => ({ key, value: { boolValue: v } });

let nextId = 0;
function span(startSec: number, attributes: Attr[], extra: Record<string, unknown> = {}) {
  nextId++;
  return {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: `b7ad6b71${String(nextId).padStart(8, "0")}`,
    name: "span",
    kind: 1,
    startTimeUnixNano: String(BigInt(1_767_225_600 + startSec) * 1_000_000_000n),
    endTimeUnixNano: String(BigInt(1_767_225_600 + startSec) * 1_000_000_000n + 250_000_000n),
    attributes,
    status: { code: 0 },
    ...extra,
  };
}

const otel = (spans: unknown[], resource: Attr[] = [s("service.name", "agent-x")]) =>
  JSON.stringify({
    resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: {}, spans }] }],
  });

describe("parseTrace — OpenTelemetry GenAI spans", () => {
  const chat = span(1, [
    s("gen_ai.operation.name", "chat"),
    s("gen_ai.request.model", "model-1"),
    n("gen_ai.usage.input_tokens", 1200),
    n("gen_ai.usage.output_tokens", 300),
  ]);
  const readTool = span(2, [
    s("gen_ai.operation.name", "execute_tool"),
    s("gen_ai.tool.name", "read_file"),
    s("gen_ai.tool.call.id", "call_1"),
    s("gen_ai.tool.call.arguments", '{"path":"src/a.ts"}'),
    { key: "bouts.tool.paths", value: { arrayValue: { values: [{ stringValue: "src/a.ts" }] } } },
  ]);
  const failing = span(3, [
    s("gen_ai.operation.name", "execute_tool"),
    s("gen_ai.tool.name", "read_file"),
    s("gen_ai.tool.call.arguments", '{"path":"src/a.ts"}'),
  ]);
  failing.status = { code: 2 };
  const editSpan = span(4, [
    s("gen_ai.operation.name", "execute_tool"),
    s("gen_ai.tool.name", "write_file"),
    s("bouts.edit.path", "src/a.ts"),
    s("bouts.edit.kind", "modify"),
    n("bouts.edit.bytes", 512),
  ]);
  const testSpan = span(5, [
    s("gen_ai.operation.name", "execute_tool"),
    s("gen_ai.tool.name", "bash"),
    s("bouts.test.command", "npm test"),
    n("bouts.test.passed", 10),
    n("bouts.test.failed", 0),
  ]);
  const http = span(0, [s("http.request.method", "POST")]);
  const agent = span(0, [s("gen_ai.operation.name", "invoke_agent")]);
  const final = span(6, [
    s("gen_ai.operation.name", "chat"),
    s("bouts.message.text", "All done."),
    b("bouts.message.final", true),
  ]);

  it("maps tool, chat, edit and test spans onto events in start-time order", () => {
    const r = parseTrace(otel([testSpan, failing, chat, readTool, editSpan, http, agent, final]));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.value;
    expect(t.source).toBe("otel");
    expect(t.header).toMatchObject({ agent: "agent-x", model: "model-1" });
    expect(t.ignoredSpans).toBe(2);
    expect(t.events.map((e) => [e.seq, e.type])).toEqual([
      [1, "message"],
      [2, "tool_call"],
      [3, "tool_call"],
      [4, "edit"],
      [5, "test_run"],
      [6, "message"],
    ]);
    expect(t.events[0]).toMatchObject({ role: "assistant", tokensIn: 1200, tokensOut: 300 });
    expect(t.events[1]).toMatchObject({
      name: "read_file",
      outcome: "ok",
      callId: "call_1",
      paths: ["src/a.ts"],
      durationMs: 250,
    });
    expect(t.events[2]).toMatchObject({ outcome: "error" });
    // identical arguments → identical digests, so repeats are detectable
    const [a, c] = [t.events[1], t.events[2]];
    expect(
      a?.type === "tool_call" && c?.type === "tool_call" && a.argsDigest === c.argsDigest,
    ).toBe(true);
    expect(t.events[3]).toMatchObject({ path: "src/a.ts", kind: "modify", bytes: 512 });
    expect(t.events[4]).toMatchObject({ command: "npm test", passed: 10, failed: 0 });
    expect(t.events[5]).toMatchObject({ text: "All done.", final: true });
  });

  it("keeps calls without arguments distinct", () => {
    const bare = () =>
      span(1, [s("gen_ai.operation.name", "execute_tool"), s("gen_ai.tool.name", "ls")]);
    const r = parseTrace(otel([bare(), bare()]));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [x, y] = r.value.events;
    expect(
      x?.type === "tool_call" && y?.type === "tool_call" && x.argsDigest !== y.argsDigest,
    ).toBe(true);
  });

  it("accepts OTLP JSON lines (one export request per line)", () => {
    const r = parseTrace(`${otel([chat])}\n${otel([readTool])}\n`);
    expect(r.ok && r.value.events.length).toBe(2);
  });

  it("names the span and attribute of a wrong attribute type", () => {
    const bad = span(1, [
      s("gen_ai.operation.name", "chat"),
      s("gen_ai.usage.input_tokens", "lots"),
    ]);
    const e = refuse(otel([chat, bad]));
    expect(e).toMatchObject({
      reason: "bad-span",
      span: 1,
      field: "attributes.gen_ai.usage.input_tokens",
    });
    expect(formatTraceError(e)).toBe(
      "span 1: attributes.gen_ai.usage.input_tokens: expected a non-negative intValue, got stringValue",
    );
    const badName = span(1, [s("gen_ai.operation.name", "execute_tool"), n("gen_ai.tool.name", 7)]);
    expect(refuse(otel([badName]))).toMatchObject({
      span: 0,
      field: "attributes.gen_ai.tool.name",
    });
    const badOp = span(1, [n("gen_ai.operation.name", 1)]);
    expect(refuse(otel([badOp]))).toMatchObject({ field: "attributes.gen_ai.operation.name" });
    const badPaths = span(1, [
      s("gen_ai.operation.name", "execute_tool"),
      s("gen_ai.tool.name", "x"),
      { key: "bouts.tool.paths", value: { arrayValue: { values: [{ intValue: "1" }] } } },
    ]);
    expect(refuse(otel([badPaths]))).toMatchObject({ field: "attributes.bouts.tool.paths" });
    const badFinal = span(1, [s("gen_ai.operation.name", "chat"), s("bouts.message.final", "yes")]);
    expect(refuse(otel([badFinal]))).toMatchObject({ field: "attributes.bouts.message.final" });
  });

  it("refuses tool spans without a tool name and edits with an unknown kind", () => {
    const noName = span(1, [s("gen_ai.operation.name", "execute_tool")]);
    expect(refuse(otel([noName]))).toMatchObject({
      reason: "bad-span",
      field: "attributes.gen_ai.tool.name",
    });
    const badKind = span(1, [
      s("gen_ai.operation.name", "execute_tool"),
      s("gen_ai.tool.name", "w"),
      s("bouts.edit.path", "a.ts"),
      s("bouts.edit.kind", "rename"),
    ]);
    expect(refuse(otel([chat, badKind]))).toMatchObject({
      span: 1,
      field: "attributes.bouts.edit.kind",
    });
    const noCounts = span(1, [
      s("gen_ai.operation.name", "execute_tool"),
      s("gen_ai.tool.name", "bash"),
      s("bouts.test.command", "pytest"),
    ]);
    expect(refuse(otel([noCounts]))).toMatchObject({ field: "attributes.bouts.test.passed" });
  });

  it("names a structurally broken span by its export index", () => {
    const { spanId: _drop, ...noId } = span(1, []);
    expect(refuse(otel([chat, readTool, noId]))).toMatchObject({
      reason: "bad-span",
      span: 2,
      field: "spanId",
    });
    const backwards = span(5, [s("gen_ai.operation.name", "chat")], {
      endTimeUnixNano: "1",
    });
    expect(refuse(otel([backwards]))).toMatchObject({ span: 0, field: "endTimeUnixNano" });
    expect(refuse(otel([span(1, [], { startTimeUnixNano: "soon" })]))).toMatchObject({
      span: 0,
      field: "startTimeUnixNano",
    });
  });

  it("refuses a malformed export envelope and invalid OTLP JSON", () => {
    expect(refuse('{"resourceSpans": 3}')).toMatchObject({
      reason: "bad-otel",
      field: "resourceSpans",
    });
    expect(refuse('{\n  "resourceSpans": [\n')).toMatchObject({ reason: "bad-otel" });
  });

  it("refuses more spans than maxEvents", () => {
    expect(refuse(otel([chat, chat, chat]), { limits: { maxEvents: 2 } })).toMatchObject({
      reason: "too-many-events",
    });
  });
});

describe("parseTrace — robustness", () => {
  it("never throws and always answers ok or a typed error", () => {
    const reasons = new Set<string>();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((j) => `{"format":"bouts.trace/v1"}\n${j}`),
          fc.json().map((j) => `{"resourceSpans":[{"scopeSpans":[{"spans":[${j}]}]}]}`),
        ),
        (text) => {
          const r = parseTrace(text, { limits: { maxBytes: 10_000 } });
          if (!r.ok) {
            reasons.add(r.error.reason);
            expect(formatTraceError(r.error).length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(reasons.size).toBeGreaterThan(1);
  });
});
