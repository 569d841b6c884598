/**
 * @module telemetry/usage
 * What a run spent, as its trace reports it: input and output tokens per model, and the agent's
 * wall time. Silence stays silence: a trace whose events report no tokens yields `tokens: null`
 * ("not measured"), never zero, and tokens that neither the event nor the header attributes to
 * a model are kept under `model: null`, so a price table can say it cannot price them.
 * Pure: no I/O, no clock (timestamps are read from the trace).
 */
import type { Trace } from "./trace.ts";

/** Tokens one model spent over a run. `model: null`: no event or header named the model. */
export interface ModelUsage {
  model: string | null;
  tokensIn: number;
  tokensOut: number;
  /** Events that reported tokens for this model. */
  events: number;
}

/** The tokens of a run, per model (sorted by name, unattributed last), and their totals. */
export interface TokenUsage {
  models: ModelUsage[];
  tokensIn: number;
  tokensOut: number;
  events: number;
}

/** What a trace says a run spent. */
export interface TraceUsage {
  /** Null when no event reports tokens: cost is "not measured", not zero. */
  tokens: TokenUsage | null;
  /**
   * The agent's wall time in ms: from the header's `startedAt` (else the first event) to the
   * end of the last event (`ts` + `durationMs`); null for a trace without events.
   */
  wallMs: number | null;
}

/**
 * Sums the tokens of every event per model (an event's own `model`, else the header's) and
 * measures the run's wall time.
 * @example extractUsage(trace).tokens?.models // [{ model: "model-a", tokensIn: 6200, … }]
 */
export function extractUsage(trace: Trace): TraceUsage {
  const byModel = new Map<string | null, ModelUsage>();
  let start: number | null = trace.header.startedAt ? Date.parse(trace.header.startedAt) : null;
  let end: number | null = null;
  for (const e of trace.events) {
    const at = Date.parse(e.ts);
    start ??= at;
    end = Math.max(end ?? at, at + ("durationMs" in e ? (e.durationMs ?? 0) : 0));
    if (e.type === "test_run" || (e.tokensIn === undefined && e.tokensOut === undefined)) continue;
    const model = e.model ?? trace.header.model ?? null;
    const usage = byModel.get(model) ?? { model, tokensIn: 0, tokensOut: 0, events: 0 };
    usage.tokensIn += e.tokensIn ?? 0;
    usage.tokensOut += e.tokensOut ?? 0;
    usage.events += 1;
    byModel.set(model, usage);
  }
  const models = [...byModel.values()].sort((a, b) =>
    a.model === b.model
      ? 0
      : a.model === null
        ? 1
        : b.model === null
          ? -1
          : a.model < b.model
            ? -1
            : 1,
  );
  const tokens =
    models.length === 0
      ? null
      : {
          models,
          tokensIn: models.reduce((n, m) => n + m.tokensIn, 0),
          tokensOut: models.reduce((n, m) => n + m.tokensOut, 0),
          events: models.reduce((n, m) => n + m.events, 0),
        };
  const wallMs = start !== null && end !== null ? Math.max(0, Math.round(end - start)) : null;
  return { tokens, wallMs };
}
