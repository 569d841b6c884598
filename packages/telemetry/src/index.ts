/**
 * @module telemetry
 * Agent-run telemetry (issue 9): the `bouts.trace/v1` trace format and its parsers (our
 * JSONL, OpenTelemetry GenAI spans), and deterministic extraction of what the scoring engine
 * needs (efficiency signals, integrity and exploit evidence, calibration claims), a bounded
 * summary for the judges, the trace's cross-checks against what the platform observed
 * (cross-check.ts, disclosure.ts), and their assembly into the engine's agent-run input
 * (agent-input.ts). Pure: no I/O, no clock, no platform APIs.
 */
export * from "./trace.ts";
export { formatTraceError, type TraceError, type TraceLimitName } from "./errors.ts";
export { parseTrace, type ParseTraceOptions } from "./parse-trace.ts";
export { OTEL_MODEL_OPERATIONS, OTEL_TOOL_OPERATION } from "./parse-otel.ts";
export {
  extractEfficiency,
  type EfficiencyEvidence,
  type EfficiencyExtraction,
  type ExtractEfficiencyOptions,
  type RepeatItem,
  type WasteItem,
  type WasteRule,
} from "./efficiency.ts";
export {
  DEFAULT_NETWORK_TOOLS,
  DEFAULT_TEST_SETUP_PATHS,
  extractTraceEvidence,
  groupObservations,
  parsePatch,
  type TraceEvidence,
  type TraceEvidenceOptions,
  type TraceObservation,
} from "./evidence.ts";
export {
  extractConfidenceStatements,
  extractTraceClaims,
  resolveClaims,
  resolveStatedConfidence,
  type ClaimSources,
  type ExtractClaimsOptions,
  type OutcomeVisibility,
  type ResolveClaimsOptions,
  type ResolvedClaims,
  type TestOutcomeLike,
  type TestOutcomes,
  type UnresolvedClaim,
} from "./calibration.ts";
export {
  summarizeTrace,
  type Capped,
  type SummarizeOptions,
  type TracePhase,
  type TraceSummary,
} from "./summary.ts";
export { digestText, findMentionedIds, globToRegExp, normalizePath } from "./text.ts";
export {
  assessTraceTrust,
  CLOCK_SKEW_MS,
  crossCheckTrace,
  isSubmitCall,
  joinBounded,
  resolveArchivePath,
  USAGE_FLOOR,
  type CheckResult,
  type Contradiction,
  type CrossCheckName,
  type RunnerResults,
  type TraceCrossCheck,
} from "./cross-check.ts";
export {
  confirmDisclosures,
  RUNNER_FAILED_STATUSES,
  type ConfirmedEvidence,
  type DisclosureCheck,
  type DisclosureOutcomes,
} from "./disclosure.ts";
export {
  analyzeTrace,
  annotateAgentBreakdown,
  buildAgentInput,
  countRunnerFailures,
  HARNESS_PATHS,
  mergeEvidence,
  NO_TRACE_DETAIL,
  parseStoredTrace,
  readAgentConfig,
  traceFactsOf,
  tracePathsOf,
  type AgentConfig,
  type AgentInputError,
  type RunnerFacts,
  type TraceAnalysis,
  type TraceJudgements,
} from "./agent-input.ts";
export { extractUsage, type ModelUsage, type TokenUsage, type TraceUsage } from "./usage.ts";
export type { ObservedModelUsage, ObservedUsage, PlatformObservations } from "./observations.ts";
