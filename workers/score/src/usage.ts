/**
 * @module score/usage
 * What a run spent, read from its telemetry trace for the cost columns (docs/leaderboard.md,
 * "Cost"). Auxiliary to the score: a trace that is absent, gone from storage or unreadable on
 * an engineering challenge makes the cost "not measured", never a failed submission (an agent
 * challenge refuses such a trace before the run, agent-run.ts).
 */
import { extractUsage, parseTrace, type Trace, type TraceUsage } from "@bouts/telemetry";
import type { ScoringContext } from "@bouts/db";

/** The run's usage: from the agent profile's parsed trace, else from the stored trace if any. */
export async function readRunUsage(
  artifacts: R2Bucket,
  ctx: ScoringContext,
  parsed: Trace | null,
): Promise<TraceUsage | null> {
  if (parsed) return extractUsage(parsed);
  const key = ctx.submission.traceKey;
  if (key === null) return null;
  const object = await artifacts.get(key);
  if (!object) return null;
  const trace = parseTrace(await object.text());
  return trace.ok ? extractUsage(trace.value) : null;
}
