/**
 * @module runner/config
 * `RUNNER_*` environment variables, parsed once at boot with zod. Every key has a default and a
 * description (docs/runner.md mirrors this table). The limits here are ceilings: a challenge or a
 * request may only lower them. A bad value is reported and the process exits non-zero.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { z } from "zod";
import type { Err, Ok } from "@bouts/result";
import { MIN_SECRET_LENGTH } from "@bouts/runner-auth";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
/** npm's CLI of the npm package the runner pins (package.json), not whichever npm is on PATH. */
const DEFAULT_NPM_CLI = path.join(
  path.dirname(createRequire(import.meta.url).resolve("npm/package.json")),
  "bin",
  "npm-cli.js",
);

const int = (def: number, min: number, max: number, description: string) =>
  z.coerce.number().int().min(min).max(max).default(def).describe(description);

/** Schema of the runner's environment; keys are the env var names without the RUNNER_ prefix. */
export const RunnerEnvSchema = z
  .object({
    HOST: z
      .string()
      .min(1)
      .default("127.0.0.1")
      .describe("address the HTTP service binds; off loopback, SHARED_SECRET is required"),
    PORT: int(8080, 1, 65535, "port the HTTP service listens on"),
    WORK_DIR: z
      .string()
      .refine((p) => path.isAbsolute(p), "must be absolute")
      .default("/tmp/bouts-runner")
      .describe("scratch space for workspaces and the prepared-challenge cache"),
    BWRAP_BIN: z.string().default("/usr/bin/bwrap").describe("bubblewrap binary"),
    NODE_BIN: z
      .string()
      .default(process.execPath)
      .describe("Node 22 binary mounted into the sandbox (default: the runner's own node)"),
    PYTHON_BIN: z.string().default("/usr/bin/python3.11").describe("Python 3.11 interpreter"),
    PYTHON_TOOLS: z
      .string()
      .default(path.join(REPO_ROOT, "containers/runner/.venv"))
      .describe("venv holding pytest, mounted read-only into Python sandboxes"),
    UID_BASE: int(61000, 1000, 4_000_000_000, "first host uid of the per-run uid pool"),
    MAX_CONCURRENT_RUNS: int(2, 1, 64, "runs executing at once; each gets its own uid"),
    TEST_TIMEOUT_MS: int(10_000, 100, 10_000, "ceiling of the per-test timeout (seed: 10 s)"),
    MEMORY_MB: int(1024, 32, 16_384, "ceiling of memory per test process tree"),
    CPU_SECONDS: int(60, 1, 3600, "ceiling of CPU seconds per process"),
    MAX_PROCESSES: int(128, 4, 4096, "ceiling of processes per run"),
    MAX_OPEN_FILES: int(512, 16, 65_536, "ceiling of open files per process"),
    MAX_FILE_SIZE_MB: int(64, 1, 4096, "ceiling of any one written file, and of sandbox /tmp"),
    MAX_OUTPUT_BYTES: int(1024 * 1024, 1024, 64 * 1024 * 1024, "ceiling of captured output"),
    RUN_WALL_MS: int(
      300_000,
      5000,
      3_600_000,
      "ceiling of a run's wall budget (scan and tests); challenges and requests may only lower it",
    ),
    SCAN_DEADLINE_MS: int(
      30_000,
      1000,
      600_000,
      "the security scan's own deadline (at most half the run's budget); past it the scan is partial",
    ),
    MAX_ARCHIVE_BYTES: int(20 * 1024 * 1024, 1024, 1024 ** 3, "largest accepted archive"),
    MAX_EXPANDED_BYTES: int(100 * 1024 * 1024, 1024, 4 * 1024 ** 3, "largest unpacked size"),
    MAX_ENTRIES: int(5000, 1, 1_000_000, "most entries in an archive"),
    MAX_DEPTH: int(20, 1, 256, "deepest path in an archive"),
    QA_REPEATS: int(3, 2, 20, "times challenge QA runs the reference suite"),
    QA_CACHE_DIR: z
      .string()
      .refine((p) => path.isAbsolute(p), "must be absolute")
      .optional()
      .describe(
        "keep publishable QA reports here by bundle sha256 and reuse them; unset: no cache",
      ),
    RUN_CACHE_DIR: z
      .string()
      .refine((p) => path.isAbsolute(p), "must be absolute")
      .optional()
      .describe(
        "keep run reports here by bundle, submission, draw key and limits, and reuse them for the same bytes; unset: no cache",
      ),
    NPM_REGISTRY: z
      .url({ protocol: /^https?$/ })
      .default("https://registry.npmjs.org")
      .describe(
        "the one npm registry dependency installs may fetch from (through the install sandbox's proxy)",
      ),
    PYPI_INDEX: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        "the one PyPI simple index (PEP 503/691 base URL) Python dependency installs may fetch from, through the install sandbox's proxy; unset: Python lockfiles are refused",
      ),
    PYPI_FILE_HOSTS: z
      .string()
      .default("")
      .refine(
        (s) => s.split(",").every((h) => h.trim() === "" || URL.canParse(h.trim())),
        "must be comma-separated URLs",
      )
      .describe(
        "comma-separated origins the index's wheels may be fetched from besides its own (for pypi.org: https://files.pythonhosted.org)",
      ),
    NPM_CLI: z
      .string()
      .refine((p) => path.isAbsolute(p), "must be absolute")
      .default(DEFAULT_NPM_CLI)
      .describe(
        "npm's CLI script run inside install sandboxes (default: the pinned npm package's)",
      ),
    SEMGREP_BIN: z
      .string()
      .optional()
      .describe("Semgrep CLI; read by the security scanner (see docs/security-scanning.md)"),
    SEMGREP_CORE_BIN: z
      .string()
      .optional()
      .describe("Semgrep engine (semgrep-core); default: the one beside SEMGREP_BIN's venv"),
    ADVISORY_ENDPOINT: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        "OSV querybatch URL the dependency check asks live (e.g. https://api.osv.dev/v1/querybatch); unset: the shipped advisory snapshot alone",
      ),
    ADVISORY_TIMEOUT_MS: int(
      10_000,
      100,
      60_000,
      "deadline of the live advisory query; past it the dependency check falls back to the snapshot",
    ),
    SELF_TEST: z
      .enum(["on", "off"])
      .default("on")
      .describe("prove isolation at boot; 'off' only for unit tests"),
    SHARED_SECRET: z
      .string()
      .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`)
      .optional()
      .describe(
        "HMAC key every request but GET /healthz must be signed with; required off loopback",
      ),
  })
  .check((ctx) => {
    // Fail closed: a runner other hosts can reach never serves unauthenticated requests.
    if (ctx.value.SHARED_SECRET === undefined && !isLoopbackHost(ctx.value.HOST))
      ctx.issues.push({
        code: "custom",
        path: ["SHARED_SECRET"],
        message: `required when RUNNER_HOST (${ctx.value.HOST}) is not a loopback address: an unauthenticated runner on a network would run anyone's code`,
        input: ctx.value,
      });
  });
export type RunnerConfig = z.infer<typeof RunnerEnvSchema>;

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Why the environment could not be turned into a config. */
export type ConfigError = { reason: "invalid-env"; issues: string[] };

/**
 * Parses `RUNNER_*` variables from `env` into a config, or lists every bad key. Unknown
 * `RUNNER_*` names (e.g. the platform's RUNNER_URL in a shared shell) are returned as warnings:
 * a typo must be visible, but another component's variable must not stop the runner.
 */
export function parseRunnerConfig(
  env: Record<string, string | undefined>,
): (Ok<RunnerConfig> & { warnings: string[] }) | Err<ConfigError> {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith("RUNNER_") && v !== undefined && v !== "") raw[k.slice(7)] = v;
  }
  const known = new Set(Object.keys(RunnerEnvSchema.shape));
  const unknown = Object.keys(raw).filter((k) => !known.has(k));
  const parsed = RunnerEnvSchema.safeParse(raw);
  const warnings = unknown.map((k) => `RUNNER_${k}: not a runner variable (ignored)`);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `RUNNER_${i.path.join(".")}: ${i.message}`);
    return { ok: false, error: { reason: "invalid-env", issues } };
  }
  return { ok: true, value: parsed.data, warnings };
}

/** Parses the process environment or exits with status 2 after naming every bad key. */
export function loadRunnerConfigOrExit(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
  const r = parseRunnerConfig(env);
  if (!r.ok) {
    for (const issue of r.error.issues) console.error(`runner config: ${issue}`);
    process.exit(2);
  }
  for (const w of r.warnings) console.warn(`runner config: ${w}`);
  return r.value;
}
