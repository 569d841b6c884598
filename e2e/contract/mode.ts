/**
 * @module e2e/contract/mode
 * The two modes of the contract test (docs/api.md "Contract test"): `short`, the one `npm test`
 * runs (120 s of Schemathesis per key, five fuzzed cases per operation so that the stateful phase
 * keeps a share), and `long`, the release check's (`npm run release:check`: 15 minutes per key and
 * up to 1,000 cases per operation), which reaches the rarer inputs a short budget leaves out.
 * Invariant: an unknown mode is refused, never read as the short one, so a release check cannot
 * silently run the quick pass.
 */

/** How long and how deep one Schemathesis run goes. */
export interface ContractMode {
  name: "short" | "long";
  /** Budget of each run (agent key, operator key), in seconds. */
  maxTimeS: number;
  /** Cases per operation, or null for Schemathesis' own default. */
  maxExamples: number | null;
  /**
   * Fuzzed cases per operation, or null for `maxExamples`. Every request goes through one rate
   * limit (400 a minute, under the platform's 600 per principal), so the short mode's 120 s are
   * about 780 requests per key: the examples (~50), the coverage phase (~370), five fuzzed cases
   * per operation (~250), and the stateful phase has the rest (~120: link chains from created
   * challenges, agents, keys and webhooks); unbounded, fuzzing took all of the rest and the
   * stateful phase did not run. A settings-file bound (modeSettings), not a command-line one:
   * `--max-examples` would bound the stateful phase's scenarios too, and Schemathesis resolves a
   * phase's own setting over it.
   */
  fuzzingExamples: number | null;
  seed: number;
}

const MODES = {
  short: { name: "short", maxTimeS: 120, maxExamples: null, fuzzingExamples: 5, seed: 20261201 },
  long: { name: "long", maxTimeS: 900, maxExamples: 1000, fuzzingExamples: null, seed: 20261201 },
} as const satisfies Record<string, ContractMode>;

function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
}

/** The mode `CONTRACT_MODE` names (default short), with `CONTRACT_MAX_TIME_S`/`_SEED` applied. */
export function readContractMode(env: NodeJS.ProcessEnv): ContractMode {
  const name = env.CONTRACT_MODE ?? "short";
  if (name !== "short" && name !== "long") {
    throw new Error(`CONTRACT_MODE must be "short" or "long", not ${JSON.stringify(name)}`);
  }
  const mode: ContractMode = { ...MODES[name] };
  if (env.CONTRACT_MAX_TIME_S)
    mode.maxTimeS = positiveInt("CONTRACT_MAX_TIME_S", env.CONTRACT_MAX_TIME_S);
  if (env.CONTRACT_SEED) mode.seed = positiveInt("CONTRACT_SEED", env.CONTRACT_SEED);
  return mode;
}

/** The Schemathesis arguments of a mode. */
export function modeArguments(mode: ContractMode): string[] {
  const args = ["--max-time", String(mode.maxTimeS), "--seed", String(mode.seed)];
  if (mode.maxExamples !== null) args.push("--max-examples", String(mode.maxExamples));
  return args;
}

/**
 * The settings file of a mode: the shared one (e2e/contract/schemathesis.toml), plus the mode's
 * bound on fuzzing when it has one. The shared file sets no `[phases.fuzzing]` of its own.
 */
export function modeSettings(mode: ContractMode, shared: string): string {
  if (/^\[phases\.fuzzing\]/m.test(shared))
    throw new Error("the shared settings must leave [phases.fuzzing] to the mode");
  if (mode.fuzzingExamples === null) return shared;
  return (
    `${shared.trimEnd()}\n\n# The ${mode.name} mode's bound on fuzzing (e2e/contract/mode.ts).\n` +
    `[phases.fuzzing]\ngeneration.max-examples = ${mode.fuzzingExamples}\n`
  );
}
