// ESLint flat config: typescript-eslint type-aware rules everywhere, plus the
// module-boundary rule that keeps the pure core free of I/O and platform imports.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const PLATFORM_IMPORTS = {
  patterns: [
    { group: ["node:*"], message: "The pure core takes no Node APIs: pass values in." },
    { group: ["cloudflare:*"], message: "The pure core takes no Cloudflare APIs." },
    { group: ["hono", "hono/*", "drizzle-orm", "drizzle-orm/*"], message: "Adapters only." },
  ],
};

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      "**/.wrangler/**",
      "**/.venv/**",
      "**/worker-configuration.d.ts",
      "challenges/**",
      "containers/runner/test/exploits/**",
      "containers/runner/test/fixtures/**",
      "containers/runner/scan-rules/**",
      "test-artifacts/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
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
    files: [
      "packages/scoring/src/**/*.ts",
      "packages/contracts/src/**/*.ts",
      "packages/telemetry/src/**/*.ts",
      "packages/ranking/src/**/*.ts",
      "packages/webhooks/src/**/*.ts",
      "packages/judges/src/**/*.ts",
      "packages/adversarial/src/**/*.ts",
      "packages/archive/src/**/*.ts",
    ],
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", PLATFORM_IMPORTS] },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
