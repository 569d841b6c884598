/**
 * @module adversarial/generator
 * The one interface every adversarial test generator implements, and what it is given. A
 * generator writes test code; it never runs anything: the runner runs generated tests in the
 * sandbox like any hidden test. Pure: no I/O of its own (a model-backed generator receives its
 * chat client), no clock.
 */
import type {
  GeneratedSuite,
  GeneratorKind,
  InterfaceSpec,
  Runtime,
  Severity,
  SourceFile,
} from "@bouts/contracts";
import type { Result } from "@bouts/result";

/** What a generator reads for one submission. */
export interface GenerationInput {
  challengeId: string;
  runtime: Runtime;
  /** The interface the challenge declares, or null when it declares none. */
  interface: InterfaceSpec | null;
  /** The submission's source files (bounded; hidden tests never included). */
  sources: readonly SourceFile[];
  /**
   * Seeds every choice. On the platform the runner's keyed draw seed (draw.ts
   * `deriveDrawSeed`: the platform's secret over the bundle), never bytes the submitter
   * controls, so neither packing nor comments nor nonces move the draw.
   */
  seed: string;
  /** Severity weight (in halves: critical 6, high 4, medium 2, low 1) to fill, and a count cap. */
  budget: { weightHalves: number; maxTests: number };
  /** Generated ids QA removed because they failed on the reference solution. */
  exclude: readonly string[];
}

/** Why a generator produced nothing. */
export type GenerationError =
  { reason: "not-declared"; detail: string } | { reason: "unavailable"; detail: string };

/** A generator's answer: a suite plus how many candidates it considered. */
export type GenerationResult = Result<
  { suite: GeneratedSuite; candidates: number; notes: string[] },
  GenerationError
>;

/** An adversarial test generator. */
export interface AdversarialGenerator {
  readonly name: string;
  readonly kind: GeneratorKind;
  readonly model: string | null;
  generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationResult>;
}

/** A weighted severity, for budgets. */
export type WeightedSeverity = Severity;
