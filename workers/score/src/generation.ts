/**
 * @module score/generation
 * The model-backed half of generated adversarial tests: with a model configured (GENERATOR_MODE
 * "openai" or "workers-ai"), it writes tests from the run's sources, the runner checks them against
 * the reference and runs the survivors, and they join the deterministic generator's tests.
 * Invariant: a model that fails, times out or writes nothing usable never fails the scoring; the
 * run keeps its deterministic tests and the report says why the model added none.
 */
import {
  composeGeneratedTests,
  createModelGenerator,
  deriveBundleDrawKey,
  weightHalves,
  type AdversarialGenerator,
} from "@bouts/adversarial";
import type { ChallengeManifest, GeneratorReport, RunReport } from "@bouts/contracts";
import type { Result } from "@bouts/result";
import {
  createOpenAiChat,
  createWorkersAiChat,
  findInjectionLines,
  type AiBinding,
} from "@bouts/judges";
import { readScoreConfig } from "./config.ts";
import { requestGeneratedRun, type RunnerEnv } from "./runner-client.ts";

/** Model-written tests get at most 1 / this of the generated weight budget. */
const MODEL_SHARE_DIVISOR = 2;

/** The env the generator and the draw key come from: its vars (config.ts) and the AI binding. */
export interface GeneratorEnv {
  /** Keys the generated tests' draw (docs/design.md §31); required, a configuration error when unset. */
  GENERATION_SECRET?: string;
  GENERATOR_MODE?: string;
  GENERATOR_MODEL?: string;
  GENERATOR_OPENAI_BASE_URL?: string;
  GENERATOR_OPENAI_API_KEY?: string;
  GENERATOR_TIMEOUT_MS?: string;
  AI?: AiBinding;
}

/**
 * The platform's draw key for a bundle (`deriveBundleDrawKey`), sent to the runner with each
 * run of the live pipeline (and rescores, on the candidate's bundle). Unset secret: a
 * configuration error (a short one is refused by the schema), so no production run ever draws
 * with the runner's public key.
 */
export async function resolveDrawKey(
  env: GeneratorEnv,
  bundle: Uint8Array,
): Promise<Result<string, { detail: string }>> {
  const secret = readScoreConfig(env).generationSecret;
  if (secret === undefined)
    return {
      ok: false,
      error: { detail: "GENERATION_SECRET is unset or shorter than 32 characters" },
    };
  const digest = await crypto.subtle.digest("SHA-256", new Uint8Array(bundle));
  const bundleSha256 = [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  return { ok: true, value: await deriveBundleDrawKey(secret, bundleSha256) };
}

/** The configured model generator, null when only the deterministic one runs, or why not. */
export function createTestGenerator(
  env: GeneratorEnv,
): Result<AdversarialGenerator | null, { detail: string }> {
  const { mode, model, openAiBaseUrl, openAiApiKey, timeoutMs } = readScoreConfig(env).generator;
  if (mode === "deterministic" || model === undefined) return { ok: true, value: null };
  if (mode === "openai") {
    // The schema requires the base URL with this mode.
    const chat = createOpenAiChat({ baseUrl: openAiBaseUrl!, model, apiKey: openAiApiKey });
    return { ok: true, value: createModelGenerator({ chat, timeoutMs }) };
  }
  if (!env.AI)
    return { ok: false, error: { detail: "GENERATOR_MODE=workers-ai needs the AI binding" } };
  return {
    ok: true,
    value: createModelGenerator({ chat: createWorkersAiChat({ ai: env.AI, model }), timeoutMs }),
  };
}

function unavailable(g: AdversarialGenerator, detail: string): GeneratorReport {
  return {
    name: g.name,
    kind: g.kind,
    model: g.model,
    status: "unavailable",
    detail: detail.slice(0, 500),
    candidates: 0,
    selected: 0,
    dropped: [],
  };
}

/** What adding model tests needs beyond the first run. */
export interface ModelTestsRequest {
  runId: string;
  report: RunReport;
  manifest: ChallengeManifest;
  submission: Uint8Array;
  bundle: Uint8Array;
  /** The attempt's deadline, for the model and the generated run (each has its own too). */
  signal?: AbortSignal;
  /** Charges the generated run's runner time (ms) to the agent; called once it answered. */
  chargeRunner?: (runnerMs: number) => Promise<void>;
}

/**
 * Runs the model generator for one run and merges its surviving tests into the report. The
 * returned report differs only in its generated adversarial tests and its generation section.
 */
export async function addModelTests(
  env: RunnerEnv,
  generator: AdversarialGenerator,
  req: ModelTestsRequest,
): Promise<RunReport> {
  const { report, manifest } = req;
  const generation = report.generation;
  if (!generation) return report;
  const withGenerator = (g: GeneratorReport, tests = report.adversarialTests): RunReport => ({
    ...report,
    adversarialTests: tests,
    generation: { ...generation, generators: [...generation.generators, g] },
  });
  // A submission that addresses a model could steer the tests written about it (for example
  // into trivially passing ones), so it gets only the deterministic generator's tests.
  const injected = findInjectionLines(report.sources.map((f) => f.content).join("\n"));
  if (injected.length > 0)
    return withGenerator(
      unavailable(
        generator,
        `skipped: the submission contains text addressed to a model (${injected.length} lines), so it gets only deterministic tests`,
      ),
    );
  // At most half the generated weight is model-written: the deterministic half always stays.
  const made = await generator.generate(
    {
      challengeId: manifest.id,
      runtime: manifest.runtime,
      interface: manifest.interface ?? null,
      sources: report.sources,
      // "The code", not the archive: the same files packed twice are one input (§31).
      seed: report.filesSha256 ?? report.submissionSha256,
      budget: {
        weightHalves: Math.floor(generation.weightHalves.budget / MODEL_SHARE_DIVISOR),
        maxTests: manifest.generation.maxTests,
      },
      exclude: [],
    },
    req.signal,
  );
  if (!made.ok) return withGenerator(unavailable(generator, made.error.detail));
  if (made.value.suite.tests.length === 0)
    return withGenerator(unavailable(generator, "the model wrote no test that fits the budget"));
  const startedAt = Date.now();
  const ran = await requestGeneratedRun(env, {
    runId: `${req.runId}-model`,
    submission: req.submission,
    bundle: req.bundle,
    suite: made.value.suite,
    ...(req.signal ? { signal: req.signal } : {}),
  });
  // The generated run's result carries no timings: its wall time as seen from here is an
  // upper bound of what it held a runner for.
  await req.chargeRunner?.(Date.now() - startedAt);
  if (!ran.ok) return withGenerator(unavailable(generator, ran.error.detail));
  const prebuilt = report.adversarialTests.filter((t) => t.origin === "prebuilt");
  const deterministic = report.adversarialTests.filter((t) => t.origin === "generated");
  // Both generators' tests share the same 60 % weight budget, model tests first.
  const merged = composeGeneratedTests(
    deterministic,
    ran.value.tests,
    generation.weightHalves.budget,
  );
  const modelReport: GeneratorReport = {
    ...ran.value.generator,
    candidates: made.value.candidates,
    detail: made.value.notes.join("; ").slice(0, 500) || null,
  };
  const generators = generation.generators.map((g) =>
    g.kind === "deterministic"
      ? {
          ...g,
          selected: g.selected - merged.displaced.length,
          dropped: [
            ...merged.displaced.map((id) => ({ id, reason: "displaced by model-written tests" })),
            ...g.dropped,
          ].slice(0, 64),
        }
      : g,
  );
  const generatedWeight = merged.tests.reduce((s, t) => s + weightHalves(t.severity), 0);
  return {
    ...report,
    adversarialTests: [...prebuilt, ...merged.tests],
    generation: {
      ...generation,
      weightHalves: { ...generation.weightHalves, generated: generatedWeight },
      generators: [...generators, modelReport],
    },
  };
}
