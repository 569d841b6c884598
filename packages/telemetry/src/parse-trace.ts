/**
 * @module telemetry/parse-trace
 * The one entry point for untrusted trace text: checks the size limits, detects the format
 * (our `bouts.trace/v1` JSONL, an OTLP/JSON export, or OTLP/JSON lines as the collector's
 * file exporter writes them) and parses it all-or-nothing. Never throws. Pure.
 */
import { err, type Result } from "@bouts/result";
import type { TraceError } from "./errors.ts";
import { parseJsonText, parseJsonlTrace, splitLines } from "./parse-jsonl.ts";
import { parseOtelTrace } from "./parse-otel.ts";
import { utf8Length } from "./text.ts";
import { DEFAULT_TRACE_LIMITS, type Trace, type TraceLimits } from "./trace.ts";

/** Options of {@link parseTrace}: any limit left out keeps its default. */
export interface ParseTraceOptions {
  limits?: Partial<TraceLimits>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Parses a trace in either supported format into the internal model, or says exactly why
 * not (the JSONL line or the OTel span index, and what is wrong).
 * @example
 * const r = parseTrace('{"format":"bouts.trace/v1"}\n{"type":"tool_call",…}');
 * if (!r.ok) console.log(formatTraceError(r.error));
 */
export function parseTrace(
  text: string,
  options: ParseTraceOptions = {},
): Result<Trace, TraceError> {
  const limits: TraceLimits = { ...DEFAULT_TRACE_LIMITS, ...options.limits };
  // UTF-8 never takes fewer bytes than UTF-16 code units, so the cheap check comes first.
  const bytes = text.length > limits.maxBytes ? text.length : utf8Length(text);
  if (bytes > limits.maxBytes)
    return err({
      reason: "too-large",
      limit: "maxBytes",
      max: limits.maxBytes,
      actual: bytes,
      detail: `trace is ${text.length > limits.maxBytes ? "at least " : ""}${bytes} bytes, the limit is ${limits.maxBytes}`,
    });
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trim() === "") return err({ reason: "empty", detail: "the trace is empty" });

  const lines = splitLines(body);
  const firstLine = lines[0] ?? "";
  const first = parseJsonText(firstLine);
  if (first.ok && isObject(first.value)) {
    if (!("resourceSpans" in first.value)) return parseJsonlTrace(body, limits);
    // OTLP/JSON lines: every non-blank line is one export request.
    const docs: unknown[] = [];
    for (const [i, line] of lines.entries()) {
      if (line.trim() === "") continue;
      const doc = parseJsonText(line);
      if (!doc.ok) return err({ reason: "bad-json", line: i + 1, detail: doc.error });
      docs.push(doc.value);
    }
    return parseOtelTrace(docs, limits);
  }
  const whole = parseJsonText(body);
  if (whole.ok && isObject(whole.value) && "resourceSpans" in whole.value)
    return parseOtelTrace([whole.value], limits);
  if (!whole.ok && body.slice(0, 2048).includes('"resourceSpans"'))
    return err({ reason: "bad-otel", field: "(root)", detail: `not JSON: ${whole.error}` });
  if (firstLine.trimStart().startsWith("{")) return parseJsonlTrace(body, limits);
  return err({
    reason: "unknown-format",
    detail:
      'neither a bouts.trace/v1 JSONL trace (line 1 {"format":"bouts.trace/v1",…}) nor an OTLP/JSON export (an object with resourceSpans)',
  });
}
