/**
 * @module score/usage
 * What a run spent, for the cost columns (docs/leaderboard.md, "Cost"): the tokens the metering
 * gateway counted when it saw the agent's model calls, else the tokens its telemetry trace
 * reports; the wall time from the trace. Auxiliary to the score: a trace that is absent, gone
 * from storage or unreadable on an engineering challenge makes the cost "not measured", never a
 * failed submission (an agent challenge refuses such a trace before the run, agent-run.ts).
 */
import type { RunUsage } from "@bouts/contracts";
import type { ScoringContext } from "@bouts/db";
import { extractUsage, parseTrace, type ObservedUsage, type Trace } from "@bouts/telemetry";

/** The gateway's count as the cost's tokens: per model, each call an event. */
function observedTokens(o: ObservedUsage): NonNullable<RunUsage["tokens"]> {
  return {
    models: o.models.map((m) => ({
      model: m.model,
      tokensIn: m.tokensIn,
      tokensOut: m.tokensOut,
      events: m.calls,
    })),
    tokensIn: o.tokensIn,
    tokensOut: o.tokensOut,
    events: o.calls,
  };
}

/**
 * The run's usage: tokens from the gateway's observation when there is one, else from the
 * agent profile's parsed trace, else from the stored trace if any; wall time from the trace.
 */
export async function readRunUsage(
  artifacts: R2Bucket,
  ctx: ScoringContext,
  parsed: Trace | null,
  observed: ObservedUsage | null = null,
): Promise<RunUsage | null> {
  let trace = parsed;
  if (!trace && ctx.submission.traceKey !== null) {
    const object = await artifacts.get(ctx.submission.traceKey);
    const read = object ? parseTrace(await object.text()) : null;
    trace = read?.ok ? read.value : null;
  }
  const fromTrace = trace ? extractUsage(trace) : null;
  if (observed)
    return {
      tokens: observedTokens(observed),
      wallMs: fromTrace?.wallMs ?? null,
      tokensSource: observed.source,
    };
  // Absent `tokensSource` reads as the trace (RunUsageSchema), as in usage stored before.
  return fromTrace;
}
