/**
 * Builders for hand-made traces in tests: small, explicit, deterministic timestamps.
 */
import {
  TRACE_FORMAT,
  digestText,
  type EditEvent,
  type MessageEvent,
  type TestRunEvent,
  type ToolCallEvent,
  type Trace,
  type TraceEvent,
} from "../src/index.ts";

const T0 = Date.UTC(2026, 0, 1);

/** A deterministic timestamp, one second per sequence number. */
export const at = (seq: number): string => new Date(T0 + seq * 1000).toISOString();

export const tool = (
  seq: number,
  name: string,
  args = "{}",
  extra: Partial<ToolCallEvent> = {},
): ToolCallEvent => ({
  type: "tool_call",
  seq,
  ts: at(seq),
  name,
  argsDigest: digestText(args),
  args,
  outcome: "ok",
  ...extra,
});

export const edit = (
  seq: number,
  path: string,
  kind: EditEvent["kind"] = "modify",
  extra: Partial<EditEvent> = {},
): EditEvent => ({ type: "edit", seq, ts: at(seq), path, kind, ...extra });

export const testRun = (
  seq: number,
  passed: number,
  failed: number,
  extra: Partial<TestRunEvent> = {},
): TestRunEvent => ({
  type: "test_run",
  seq,
  ts: at(seq),
  command: "npm test",
  passed,
  failed,
  outcome: "ok",
  ...extra,
});

export const message = (
  seq: number,
  role: MessageEvent["role"] = "assistant",
  extra: Partial<MessageEvent> = {},
): MessageEvent => ({ type: "message", seq, ts: at(seq), role, ...extra });

/** A trace from events, as the JSONL parser would produce it. */
export const buildTrace = (events: TraceEvent[]): Trace => ({
  format: TRACE_FORMAT,
  source: "jsonl",
  header: { format: TRACE_FORMAT },
  events,
  ignoredSpans: 0,
});

/** JSONL text of a header and events (objects are written as given, valid or not). */
export const toJsonl = (events: readonly unknown[], header: unknown = { format: TRACE_FORMAT }) =>
  [header, ...events].map((e) => JSON.stringify(e)).join("\n") + "\n";
