/**
 * @module telemetry/summary
 * A compact, bounded summary of a trace for the Process, Strategy and Recovery judges:
 * counts, a timeline of phases, failures and recoveries, pivots, test progress. Invariants:
 * every list is capped (with an `omitted` count), the text is at most `maxChars`, every
 * agent-controlled string (tool names, paths, commands) is clipped and JSON-quoted so that a
 * judge reads it as data; deterministic. Pure.
 */
import { findRevertedEdits } from "./efficiency.ts";
import { clip, normalizePath, quote } from "./text.ts";
import { isAction, type EditEvent, type Trace } from "./trace.ts";

/** A run of consecutive actions of one kind. */
export interface TracePhase {
  kind: "investigate" | "edit" | "test";
  fromSeq: number;
  toSeq: number;
  actions: number;
  /** For test phases: failing tests in the phase's last run. */
  failing?: number;
}

/** A capped list and how many entries were left out. */
export interface Capped<T> {
  items: T[];
  omitted: number;
}

/** What the judges receive. */
export interface TraceSummary {
  format: string;
  source: "jsonl" | "otel";
  counts: {
    events: number;
    actions: number;
    toolCalls: number;
    failedToolCalls: number;
    edits: number;
    filesEdited: number;
    testRuns: number;
    failingTestRuns: number;
    messages: number;
    tokens: number | null;
  };
  phases: Capped<TracePhase>;
  failures: Capped<{ seq: number; what: string }>;
  recoveries: Capped<{ failedSeq: number; recoveredSeq: number; what: string }>;
  pivots: Capped<{ fromSeq: number; toSeq: number; what: string }>;
  testProgress: Capped<{ seq: number; passed: number; failed: number }>;
  text: string;
}

/** Bounds of {@link summarizeTrace}; defaults 24 phases, 12 items per list, 4000 characters. */
export interface SummarizeOptions {
  maxPhases?: number;
  maxItems?: number;
  maxChars?: number;
}

function cap<T>(items: T[], max: number): Capped<T> {
  return items.length <= max
    ? { items, omitted: 0 }
    : { items: items.slice(0, max), omitted: items.length - max };
}

/** Keeps the first and last halves of a long list (a timeline's start and end both matter). */
function capEnds<T>(items: T[], max: number): Capped<T> {
  if (items.length <= max) return { items, omitted: 0 };
  const head = Math.ceil(max / 2);
  const tail = max - head;
  return {
    items: [...items.slice(0, head), ...items.slice(items.length - tail)],
    omitted: items.length - max,
  };
}

const range = (a: number, b: number) => (a === b ? `#${a}` : `#${a}–#${b}`);

/**
 * Summarises a trace for the judges: a JSON-able object plus a plain-text rendering.
 * @example
 * const s = summarizeTrace(trace);
 * judgeEvidence.push(s.text);
 */
export function summarizeTrace(trace: Trace, options: SummarizeOptions = {}): TraceSummary {
  const maxPhases = Math.max(2, options.maxPhases ?? 24);
  const maxItems = Math.max(1, options.maxItems ?? 12);
  const maxChars = Math.max(200, options.maxChars ?? 4000);
  const actions = trace.events.filter(isAction);

  // ─── Counts ───
  let tokens = 0;
  let tokenEvents = 0;
  for (const e of trace.events)
    if (e.type !== "test_run" && (e.tokensIn !== undefined || e.tokensOut !== undefined)) {
      tokenEvents++;
      tokens += (e.tokensIn ?? 0) + (e.tokensOut ?? 0);
    }
  const toolCalls = actions.filter((a) => a.type === "tool_call");
  const edits = actions.filter((a): a is EditEvent => a.type === "edit");
  const testRuns = actions.filter((a) => a.type === "test_run");
  const counts: TraceSummary["counts"] = {
    events: trace.events.length,
    actions: actions.length,
    toolCalls: toolCalls.length,
    failedToolCalls: toolCalls.filter((t) => t.outcome === "error").length,
    edits: edits.length,
    filesEdited: new Set(edits.map((e) => normalizePath(e.path))).size,
    testRuns: testRuns.length,
    failingTestRuns: testRuns.filter((t) => t.outcome === "error" || t.failed > 0).length,
    messages: trace.events.length - actions.length,
    tokens: tokenEvents > 0 ? tokens : null,
  };

  // ─── Phases, failures, recoveries ───
  const phases: TracePhase[] = [];
  const failures: { seq: number; what: string }[] = [];
  const recoveries: { failedSeq: number; recoveredSeq: number; what: string }[] = [];
  const testProgress: { seq: number; passed: number; failed: number }[] = [];
  const failingTool = new Map<string, number>();
  const failingTest = new Map<string, number>();
  for (const a of actions) {
    const kind = a.type === "tool_call" ? "investigate" : a.type === "edit" ? "edit" : "test";
    const last = phases[phases.length - 1];
    if (last && last.kind === kind) {
      last.toSeq = a.seq;
      last.actions++;
    } else phases.push({ kind, fromSeq: a.seq, toSeq: a.seq, actions: 1 });
    const current = phases[phases.length - 1] as TracePhase;

    if (a.type === "tool_call") {
      const first = failingTool.get(a.name);
      if (a.outcome === "error") {
        failures.push({ seq: a.seq, what: `tool ${quote(a.name, 60)} failed` });
        if (first === undefined) failingTool.set(a.name, a.seq);
      } else if (first !== undefined) {
        recoveries.push({
          failedSeq: first,
          recoveredSeq: a.seq,
          what: `tool ${quote(a.name, 60)} succeeded again`,
        });
        failingTool.delete(a.name);
      }
    } else if (a.type === "test_run") {
      testProgress.push({ seq: a.seq, passed: a.passed, failed: a.failed });
      current.failing = a.failed;
      const first = failingTest.get(a.command);
      const bad = a.outcome === "error" || a.failed > 0;
      if (bad) {
        failures.push({
          seq: a.seq,
          what:
            a.outcome === "error"
              ? `test run ${quote(a.command, 80)} could not run`
              : `test run ${quote(a.command, 80)}: ${a.failed} failed, ${a.passed} passed`,
        });
        if (first === undefined) failingTest.set(a.command, a.seq);
      } else if (first !== undefined) {
        recoveries.push({
          failedSeq: first,
          recoveredSeq: a.seq,
          what: `test run ${quote(a.command, 80)} passes (${a.passed} passed)`,
        });
        failingTest.delete(a.command);
      }
    }
  }

  // ─── Pivots: spans of edits that were undone (an abandoned approach) ───
  const reverted = findRevertedEdits(edits);
  const spans = new Map<string, { fromSeq: number; toSeq: number; path: string; n: number }>();
  for (const e of edits) {
    const span = reverted.get(e.seq);
    if (span === undefined) continue;
    const key = `${e.path}\u0000${span.opener}`;
    const entry = spans.get(key) ?? {
      fromSeq: span.opener,
      toSeq: span.closer,
      path: e.path,
      n: 0,
    };
    entry.toSeq = Math.max(entry.toSeq, span.closer);
    entry.n++;
    spans.set(key, entry);
  }
  const pivots = [...spans.values()]
    .sort((x, y) => x.fromSeq - y.fromSeq || x.toSeq - y.toSeq)
    .map((s) => ({
      fromSeq: s.fromSeq,
      toSeq: s.toSeq,
      what: `${s.n} edit(s) to ${quote(s.path, 100)} ended where they started (abandoned)`,
    }));

  const summary: Omit<TraceSummary, "text"> = {
    format: trace.format,
    source: trace.source,
    counts,
    phases: capEnds(phases, maxPhases),
    failures: cap(failures, maxItems),
    recoveries: cap(recoveries, maxItems),
    pivots: cap(pivots, maxItems),
    testProgress: capEnds(testProgress, maxItems),
  };
  return { ...summary, text: clip(renderSummary(summary), maxChars) };
}

function more(omitted: number): string {
  return omitted > 0 ? ` (+${omitted} more)` : "";
}

function renderSummary(s: Omit<TraceSummary, "text">): string {
  const c = s.counts;
  const lines = [
    `Trace (${s.format}, ${s.source}): ${c.events} events, ${c.actions} actions — ` +
      `${c.toolCalls} tool calls (${c.failedToolCalls} failed), ${c.edits} edits to ${c.filesEdited} files, ` +
      `${c.testRuns} test runs (${c.failingTestRuns} failing); ${c.messages} messages; ` +
      `tokens ${c.tokens ?? "not reported"}.`,
  ];
  const timeline = s.phases.items.map(
    (p) =>
      `${p.kind} ${range(p.fromSeq, p.toSeq)} (${p.actions}${p.failing !== undefined ? `, ${p.failing} failing` : ""})`,
  );
  if (s.phases.omitted > 0) {
    const head = Math.ceil(s.phases.items.length / 2);
    timeline.splice(head, 0, `… ${s.phases.omitted} phases …`);
  }
  if (timeline.length > 0) lines.push(`Timeline: ${timeline.join(" → ")}`);
  if (s.testProgress.items.length > 0)
    lines.push(
      `Tests: ${s.testProgress.items.map((t) => `#${t.seq} ${t.passed}✓/${t.failed}✗`).join(", ")}${more(s.testProgress.omitted)}`,
    );
  if (s.failures.items.length > 0)
    lines.push(
      `Failures: ${s.failures.items.map((f) => `#${f.seq} ${f.what}`).join("; ")}${more(s.failures.omitted)}`,
    );
  if (s.recoveries.items.length > 0)
    lines.push(
      `Recoveries: ${s.recoveries.items.map((r) => `#${r.failedSeq} → #${r.recoveredSeq} ${r.what}`).join("; ")}${more(s.recoveries.omitted)}`,
    );
  if (s.pivots.items.length > 0)
    lines.push(
      `Pivots: ${s.pivots.items.map((p) => `${range(p.fromSeq, p.toSeq)} ${p.what}`).join("; ")}${more(s.pivots.omitted)}`,
    );
  return lines.map((l) => clip(l, 1500)).join("\n");
}
