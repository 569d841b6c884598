// ESLint flat config: typescript-eslint type-aware rules everywhere; the purity rules that keep
// the pure packages free of platform imports, I/O, the clock, timers and randomness (adapter
// files named in PURE_EXCEPTIONS); and the role boundaries: no role Worker imports another
// (ROLE_BOUNDARIES), the platform Worker excepted, and no workspace imports scripts/ or another
// workspace's tests.
import { readdirSync } from "node:fs";
import path from "node:path";
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

const PLATFORM_IMPORTS = {
  patterns: [
    { group: ["node:*"], message: "The pure core takes no Node APIs: pass values in." },
    { group: ["cloudflare:*"], message: "The pure core takes no Cloudflare APIs." },
    { group: ["hono", "hono/*", "drizzle-orm", "drizzle-orm/*"], message: "Adapters only." },
  ],
};

// ─── Purity ───

// The pure packages: no I/O, no clock, no timers, no randomness of their own; callers pass
// `now`, ids, seeds and `fetch` in. (`db` is the one package that is an adapter: drizzle + D1.)
const PURE_PACKAGES = [
  "adversarial",
  "archive",
  "contracts",
  "dependencies",
  "judges",
  "ranking",
  "result",
  "runner-auth",
  "scoring",
  "telemetry",
  "webhooks",
];

// The adapter files inside pure packages, each with what it may touch. Nothing else may.
const PURE_EXCEPTIONS = [
  "packages/adversarial/src/model.ts", // the model generator's per-attempt AbortSignal.timeout
  "packages/judges/src/chat.ts", // HTTP chat clients: the global fetch when none is injected
  "packages/judges/src/judge.ts", // the judge retry loop's per-attempt AbortSignal.timeout
  "packages/judges/src/prompt.ts", // a fresh prompt nonce per call: crypto.getRandomValues
  "packages/webhooks/src/deliver.ts", // one delivery: Date.now default, AbortSignal.timeout, fetch type
  "packages/webhooks/src/signing.ts", // new secrets and message ids: crypto.getRandomValues
];

const IMPURE =
  "Pure package: take it as an argument (now, fetch, a seed, a signal), or do it in an adapter.";
const PURITY_RULES = {
  "no-restricted-globals": [
    "error",
    ...[
      "fetch",
      "setTimeout",
      "setInterval",
      "setImmediate",
      "clearTimeout",
      "clearInterval",
      "clearImmediate",
      "process",
      "performance",
    ].map((name) => ({ name, message: IMPURE })),
  ],
  "no-restricted-properties": [
    "error",
    ...[
      ["Date", "now"],
      ["Math", "random"],
      ["crypto", "getRandomValues"],
      ["crypto", "randomUUID"],
      ["performance", "now"],
      ["AbortSignal", "timeout"],
      ["globalThis", "fetch"],
      ["globalThis", "process"],
      ["globalThis", "setTimeout"],
      ["globalThis", "setInterval"],
    ].map(([object, property]) => ({ object, property, message: IMPURE })),
  ],
  "no-restricted-syntax": [
    "error",
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: `new Date() reads the clock. ${IMPURE}`,
    },
    {
      selector: "CallExpression[callee.name='Date']",
      message: `Date() reads the clock. ${IMPURE}`,
    },
  ],
};

// ─── Imports ───

// The import-x plugin as the role boundaries use it. Relative imports carry their .ts extension;
// @bouts/* resolve through their `exports`, to the workspace's own files.
const IMPORT_X = {
  plugins: { "import-x": importX },
  settings: {
    "import-x/extensions": [".ts", ".js", ".mjs"],
    "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
    "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".js", ".mjs"] })],
  },
};

// ─── Role boundaries ───

// The Worker that composes the roles (docs/design.md, "One deployable Worker"): it alone may
// import them. Every other folder of workers/ is a role, which shares code with the others only
// through packages/ (the shapes that cross between roles are `@bouts/contracts`').
export const COMPOSING_WORKER = "platform";
const ROLES = readdirSync(path.join(import.meta.dirname, "workers"), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== COMPOSING_WORKER)
  .map((d) => d.name);

// Every workspace (package.json "workspaces"), as "<group>/<name>".
const WORKSPACES = ["packages", "workers", "containers"].flatMap((group) =>
  readdirSync(path.join(import.meta.dirname, group), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `${group}/${d.name}`),
);

/** The test/ folders a workspace may not import: every other workspace's (the platform's tests
 * may use the roles' test helpers, as its sources compose the roles). */
const testFoldersOutside = (ws) =>
  WORKSPACES.filter(
    (other) =>
      other !== ws && !(ws === `workers/${COMPOSING_WORKER}` && other.startsWith("workers/")),
  ).map((other) => `./${other}/test`);

/**
 * One zone per role: nothing under workers/<role> (sources, tests, configs) imports from another
 * folder of workers/, by relative path or by its workspace name (the resolver follows
 * `@bouts/score` to workers/score). The platform Worker has no such zone: composing roles is its
 * job. And one zone per workspace (packages/, workers/, containers/): it imports neither scripts/
 * nor another workspace's test/ folder, so a workspace's tests and configs stand on packages.
 */
export const ROLE_BOUNDARIES = {
  files: ["{workers,packages,containers}/**/*.{ts,js,mjs}"],
  ...IMPORT_X,
  rules: {
    "import-x/no-restricted-paths": [
      "error",
      {
        basePath: import.meta.dirname,
        zones: [
          ...ROLES.map((role) => ({
            target: `./workers/${role}`,
            from: "./workers",
            except: [`./${role}`],
            message: `A role does not import another role (only workers/${COMPOSING_WORKER} composes them): move what both need to a package, the shapes between roles to @bouts/contracts.`,
          })),
          ...WORKSPACES.map((ws) => ({
            target: `./${ws}`,
            from: ["./scripts", ...testFoldersOutside(ws)],
            message:
              "A workspace imports neither scripts/ nor another workspace's test/ folder: a fixture two workspaces build with belongs in @bouts/fixtures (packages/fixtures).",
          })),
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      "**/.wrangler/**",
      "**/.venv*/**",
      "**/worker-configuration.d.ts",
      "**/worker-runtime.d.ts",
      "challenges/**",
      "containers/runner/test/exploits/**",
      "containers/runner/test/fixtures/**",
      "containers/runner/test/honest/**",
      "containers/runner/scan-rules/**",
      "test-artifacts/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        // typescript-eslint switches to its "single run" programs when CI=true (or when argv names
        // the eslint binary, as the one-thread lint's does); with two linting threads that doubled
        // the lint (71 s / 135 CPU-s -> 144 s / 276 CPU-s, the same tree), so CI lints the way a
        // local run does.
        disallowAutomaticSingleRunInference: true,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: PURE_PACKAGES.map((p) => `packages/${p}/src/**/*.ts`),
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", PLATFORM_IMPORTS] },
  },
  {
    files: PURE_PACKAGES.map((p) => `packages/${p}/src/**/*.ts`),
    ignores: ["**/*.test.ts", ...PURE_EXCEPTIONS],
    rules: PURITY_RULES,
  },
  // No import cycles, anywhere: not a lint rule (import-x/no-cycle skipped type-only imports and
  // took a tenth of the lint's time) but scripts/test/import-circles.test.ts, over the whole tree.
  ROLE_BOUNDARIES,
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
