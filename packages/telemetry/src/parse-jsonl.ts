/**
 * @module telemetry/parse-jsonl
 * Parses the `bouts.trace/v1` JSONL form: line 1 is the header, every further non-blank
 * line one event. Invariants: all-or-nothing (the first bad line refuses the whole trace,
 * naming the 1-based line); limits are checked before any line is parsed; `seq` strictly
 * increases. Never throws. Pure: zod only.
 */
import { err, ok, type Result } from "@bouts/result";
import { describeIssue, type TraceError } from "./errors.ts";
import {
  checkEventConsistency,
  TRACE_FORMAT,
  TraceEventSchema,
  TraceHeaderSchema,
  type Trace,
  type TraceEvent,
  type TraceLimits,
} from "./trace.ts";

/**
 * Parses one JSON value of a trace, as a Result that keeps the parser's message for the trace
 * error (`@bouts/contracts` parseJson is the lenient form for stored columns).
 */
export function parseJsonText(text: string): Result<unknown, string> {
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (e) {
    return err(e instanceof Error ? e.message : "invalid JSON");
  }
}

/** Splits text into lines, tolerating CRLF. */
export function splitLines(text: string): string[] {
  return text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/**
 * Parses a JSONL trace whose overall size has already been checked. Blank lines are
 * skipped; line numbers in errors are the file's own.
 */
export function parseJsonlTrace(text: string, limits: TraceLimits): Result<Trace, TraceError> {
  const lines = splitLines(text);
  for (const [i, line] of lines.entries())
    if (line.length > limits.maxLineLength)
      return err({
        reason: "line-too-long",
        limit: "maxLineLength",
        line: i + 1,
        max: limits.maxLineLength,
        actual: line.length,
        detail: `line is ${line.length} characters, the limit is ${limits.maxLineLength}`,
      });

  const first = parseJsonText(lines[0] ?? "");
  if (!first.ok) return err({ reason: "bad-header", line: 1, detail: `not JSON: ${first.error}` });
  const header = TraceHeaderSchema.safeParse(first.value);
  if (!header.success) {
    const { field, detail } = describeIssue(header.error);
    const format = (first.value as { format?: unknown } | null)?.format;
    return err({
      reason: "bad-header",
      line: 1,
      detail:
        field === "format"
          ? `format must be "${TRACE_FORMAT}", got ${JSON.stringify(format) ?? "nothing"}`
          : `${field}: ${detail}`,
    });
  }

  const events: TraceEvent[] = [];
  let lastSeq = -1;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    const lineNo = i + 1;
    if (events.length >= limits.maxEvents)
      return err({
        reason: "too-many-events",
        limit: "maxEvents",
        max: limits.maxEvents,
        detail: `more than ${limits.maxEvents} events (line ${lineNo} is event ${events.length + 1})`,
      });
    const json = parseJsonText(line);
    if (!json.ok) return err({ reason: "bad-json", line: lineNo, detail: json.error });
    const event = TraceEventSchema.safeParse(json.value);
    if (!event.success) {
      const { field, detail } = describeIssue(event.error);
      return err({ reason: "bad-event", line: lineNo, field, detail });
    }
    const inconsistent = checkEventConsistency(event.data);
    if (inconsistent) return err({ reason: "bad-event", line: lineNo, ...inconsistent });
    if (event.data.seq <= lastSeq)
      return err({
        reason: "bad-sequence",
        line: lineNo,
        detail: `seq ${event.data.seq} does not increase (previous ${lastSeq})`,
      });
    lastSeq = event.data.seq;
    events.push(event.data);
  }
  return ok({
    format: TRACE_FORMAT,
    source: "jsonl",
    header: header.data,
    events,
    ignoredSpans: 0,
  });
}
