/**
 * @module scoring/profiles/profile
 * What a scoring profile is: one entry of the registry (registry.ts) carrying everything the
 * engine does differently per profile — its id and version, its labels, its compute (which
 * validates every field of its input), the public cut of its breakdowns, and the hooks of the
 * paired comparison and the score interval. In the manner of CMS's score types (one class per
 * type with its `compute_score`, its public/private cut and its labels, named by the task): a
 * challenge names its profile, and everything else follows from the entry. The id list is the
 * engine's input union (`ScoreInput["profile"]`, input.ts); the registry has one entry per id
 * or does not compile. Types only.
 */
import type { Result } from "@bouts/result";
import type { IntervalModel } from "../bootstrap.ts";
import type { Breakdown, ComponentKey } from "../breakdown.ts";
import type { ScoringError } from "../errors.ts";
import type { ProfileId, ScoreInput } from "../input.ts";
import type { PairingPart } from "../pairing-strata.ts";
import type { PublicBreakdown } from "../public-cut.ts";
import type { Family } from "../tables.ts";

/** The engine's input of the profile `K`. */
export type InputOf<K extends ProfileId> = Extract<ScoreInput, { profile: K }>;

/** How breakdowns, pages and docs name a profile and its parts. */
export interface ProfileLabels {
  /** Its title on pages: "Engineering composite". */
  readonly title: string;
  /** How a line of text names it, before "profile": "engineering", "agent-run". */
  readonly name: string;
  /** Each of its components' label in a breakdown, in breakdown order. */
  readonly components: Readonly<Partial<Record<ComponentKey, string>>>;
  /** The families that weigh its components, with their rationales (agent-run). */
  readonly families?: Readonly<Record<Family, { label: string; rationale: string }>>;
}

/** One scoring profile: the registry's entry for the inputs of type `I`. */
export interface ScoringProfile<I extends { profile: string } = ScoreInput> {
  /** The id its inputs and breakdowns carry in `profile`. */
  readonly id: I["profile"];
  /** The version of its rules; a stored breakdown names the version that computed it. */
  readonly version: number;
  readonly labels: ProfileLabels;
  /**
   * Validates every field of the input it reads (the first bad one is named: the engine's own
   * check, whatever the wire schema let through) and computes the breakdown. The wire schema of
   * the same input is the profile's entry of `PROFILE_INPUT_SCHEMAS` in @bouts/contracts.
   */
  readonly compute: (input: I) => Result<Breakdown, ScoringError>;
  /** What anyone but the submitting agent may read of one of its breakdowns (every number). */
  readonly publicCut: (b: Breakdown) => PublicBreakdown;
  /**
   * Its breakdown's shared-test strata and unshared variance for the paired comparison (by the
   * input's per-test verdicts), or null when the input lists none; a list that contradicts the
   * counts is refused, naming the field.
   */
  readonly pairing: (input: I, b: Breakdown) => Result<PairingPart | null, ScoringError>;
  /** What the interval's bootstrap resamples in one of its breakdowns, and what it holds fixed. */
  readonly interval: (b: Breakdown) => IntervalModel;
}

/**
 * A registry of profiles: one entry per profile id of the inputs `I`, each typed for its own
 * input. An input whose profile has no entry does not compile
 * (packages/scoring/test/profiles.test.ts shows it with `@ts-expect-error`).
 */
export type ProfileRegistry<I extends { profile: string } = ScoreInput> = {
  readonly [K in I["profile"]]: ScoringProfile<Extract<I, { profile: K }>>;
};
