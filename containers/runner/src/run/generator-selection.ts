/**
 * @module runner/run/generator-selection
 * Which generated adversarial tests a run executes, and the `generation` section of its report:
 * the deterministic generator's tests for this submission (the default), every candidate of
 * the declared interface (challenge QA), a suite written elsewhere (a model-backed generator),
 * or none. Invariants: no I/O (the job writes the chosen suite's files into the trusted
 * workspace); the same manifest, sources and seed select the same tests, and the seed is the
 * job's keyed draw seed, never the submission's bytes; exactly one generator is reported
 * whenever a mode other than "none" is asked for.
 */
import {
  buildCandidates,
  computeGeneratedBudget,
  createDeterministicGenerator,
  DETERMINISTIC_GENERATOR,
  weightHalves,
  writeDeterministicSuite,
} from "@bouts/adversarial";
import type {
  ChallengeManifest,
  GeneratedSuite,
  GeneratedTestSpec,
  GenerationReport,
  GeneratorReport,
  SourceFile,
} from "@bouts/contracts";

/**
 * How a run gets its generated tests: "select" (default) draws the deterministic generator's
 * tests for this submission; "all-candidates" runs every candidate (challenge QA); a supplied
 * suite (written by a model-backed generator elsewhere) replaces both; "none" runs none.
 * `onlyGenerated` runs the supplied suite alone: no static or pre-built tests, no scan.
 */
export type GenerationMode =
  "select" | "all-candidates" | "none" | { suite: GeneratedSuite; onlyGenerated: boolean };

/** The chosen suite (null when there is none), its tests, and what to report about it. */
export interface GenerationSelection {
  suite: GeneratedSuite | null;
  tests: GeneratedTestSpec[];
  report: GenerationReport;
}

/** What the selection reads of a run. */
export interface GenerationSelectionOptions {
  manifest: ChallengeManifest;
  /** The submission's source files: the deterministic generator aims at what they contain. */
  sources: SourceFile[];
  /** Seeds the deterministic generator's draw (job.ts: the draw key over the bundle). */
  seed: string;
  /** Whether the seed came from a platform key (false: the public key of local runs). */
  keyed: boolean;
}

/** Selects the generated tests of a run and builds its `generation` report. */
export async function selectGeneratedTests(
  mode: GenerationMode,
  { manifest, sources, seed, keyed }: GenerationSelectionOptions,
): Promise<GenerationSelection> {
  const prebuilt = manifest.adversarialTests.reduce((s, t) => s + weightHalves(t.severity), 0);
  const budget = computeGeneratedBudget(prebuilt);
  const generators: GeneratorReport[] = [];
  let suite: GeneratedSuite | null = null;
  if (typeof mode === "object") {
    suite = mode.suite;
    generators.push({
      ...mode.suite.generator,
      status: "ok",
      detail: null,
      candidates: mode.suite.tests.length,
      selected: mode.suite.tests.length,
      dropped: [],
    });
  } else if (mode !== "none") {
    const base = { name: DETERMINISTIC_GENERATOR, kind: "deterministic" as const, model: null };
    const iface = manifest.interface ?? null;
    const excluded = manifest.generation.exclude;
    if (mode === "all-candidates" && iface) {
      const pool = buildCandidates(iface, manifest.runtime);
      if (pool.ok) {
        const all = pool.value.filter((c) => !excluded.includes(c.id));
        suite = writeDeterministicSuite(iface, manifest.runtime, all);
        generators.push({
          ...base,
          status: "ok",
          detail: "every candidate (challenge QA)",
          candidates: all.length,
          selected: all.length,
          dropped: [],
        });
      } else
        generators.push({
          ...base,
          status: "unavailable",
          detail: pool.detail,
          candidates: 0,
          selected: 0,
          dropped: [],
        });
    } else {
      const r = await createDeterministicGenerator().generate({
        challengeId: manifest.id,
        runtime: manifest.runtime,
        interface: iface,
        sources,
        seed,
        budget: { weightHalves: budget, maxTests: manifest.generation.maxTests },
        exclude: excluded,
      });
      if (r.ok) {
        suite = r.value.suite;
        generators.push({
          ...base,
          status: "ok",
          detail: [
            keyed ? "drawn with the platform's key" : "drawn with the public key (no platform key)",
            ...r.value.notes,
          ]
            .join("; ")
            .slice(0, 500),
          candidates: r.value.candidates,
          selected: r.value.suite.tests.length,
          dropped: excluded.slice(0, 64).map((id) => ({
            id,
            reason: "failed on the reference solution in challenge QA",
          })),
        });
      } else
        generators.push({
          ...base,
          status: r.error.reason,
          detail: r.error.detail,
          candidates: 0,
          selected: 0,
          dropped: [],
        });
    }
  }
  const tests = suite?.tests ?? [];
  return {
    suite,
    tests,
    report: {
      target: { prebuilt: 40, generated: 60 },
      weightHalves: {
        prebuilt,
        generated: tests.reduce((s, t) => s + weightHalves(t.severity), 0),
        budget,
      },
      generators,
    },
  };
}
