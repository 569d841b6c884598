/**
 * @module scoring
 * The pure scoring engine: both profiles, judge aggregation, weights, ranking order and
 * trajectories. No I/O, no clock, no Cloudflare or Node APIs, no dependencies — anyone can
 * re-compute a published score with it.
 */
export * from "./result.ts";
export * from "./exact.ts";
export * from "./tables.ts";
export * from "./input.ts";
export * from "./breakdown.ts";
export {
  aggregatePanel,
  type AggregationRule,
  type PanelResult,
  type PanelScore,
} from "./aggregate.ts";
export {
  computeEngineering,
  computeStatic,
  computeAdversarial,
  computeCodeQuality,
  computeDeliverables,
  computeSecurity,
  computeStability,
  resolveSeverity,
} from "./engineering.ts";
export {
  computeAgent,
  computeEfficiency,
  computeCalibration,
  computeIntegrity,
  computeExploits,
} from "./agent.ts";
export { resolveBand } from "./compose.ts";
export { validateCustomWeights, resolveFamilyWeights } from "./weights.ts";
export { computeScore } from "./score.ts";
export * from "./leaderboard.ts";
export { SEED_ENGINEERING_EXAMPLE, SEED_AGENT_EXAMPLE } from "./examples.ts";
