/**
 * @module scoring
 * The pure scoring engine: the profiles and their registry (`SCORING_PROFILES`, one entry per
 * profile: compute, public cut, pairing and interval hooks, labels), judge aggregation,
 * weights, the tables and their vocabularies (bands, triggers, provenances), trajectories. No I/O, no clock, no Cloudflare or Node APIs,
 * no dependency but the zero-dependency `@bouts/result` — anyone can re-compute a published
 * score with it. (The ranking order of standings is `@bouts/ranking`'s.)
 */
export * from "./errors.ts";
export * from "./exact.ts";
export * from "./tables.ts";
export * from "./input.ts";
export * from "./breakdown.ts";
export * from "./view.ts";
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
export {
  OBJECTIVE_PROVENANCE,
  PROVENANCES,
  TRUST_BASIS_MAX,
  TRUSTED_COMPONENTS,
  type TrustedComponent,
} from "./trust.ts";
export { resolveBand } from "./compose.ts";
export { summarizeJudging } from "./judging.ts";
export { validateCustomWeights, resolveFamilyWeights } from "./weights.ts";
export { computeScore, withInterval, type ScoreOptions } from "./score.ts";
export { isProfileId, PROFILES, SCORING_PROFILES, scoringProfileOf } from "./profiles/registry.ts";
export type {
  InputOf,
  ProfileLabels,
  ProfileRegistry,
  ScoringProfile,
} from "./profiles/profile.ts";
export {
  computeInterval,
  INTERVAL_LEVEL,
  INTERVAL_REPLICATES,
  submissionSeed,
  type BreakdownIntervals,
  type IntervalOptions,
} from "./interval.ts";
export {
  comparePaired,
  compilePairing,
  computePairingProfile,
  orderPaired,
  orderSameShape,
  pairedStandardError,
  PAIRING_Z,
  type CompiledPairing,
  type PairedOrder,
  type PairedSide,
} from "./pairing.ts";
export { createPrng, fnv1a32, type Prng } from "./prng.ts";
export {
  countPrivate,
  declareSplit,
  drawSplit,
  type SplitCandidate,
  type TestSplit,
} from "./split.ts";
export * from "./leaderboard.ts";
export {
  CROSS_CHECKED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  SEED_AGENT_EXAMPLE,
} from "./examples.ts";
export { EDGE_EXAMPLES } from "./edge-examples.ts";
