/**
 * The lint runs the same way in CI as on a developer's machine: type-aware parsing does not
 * switch to typescript-eslint's "single run" programs when `CI=true` (with ESLint's linting
 * threads that doubled the lint's time: docs/benchmarks.md, "suite").
 */
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = path.join(import.meta.dirname, "../..");

describe("the lint configuration", () => {
  it("parses TypeScript with the project service, whether or not CI is set", async () => {
    const eslint = new ESLint({ cwd: ROOT });
    for (const file of ["packages/scoring/src/engineering.ts", "scripts/test.ts"]) {
      const config = (await eslint.calculateConfigForFile(path.join(ROOT, file))) as {
        languageOptions?: { parserOptions?: Record<string, unknown> };
      };
      const options = config.languageOptions?.parserOptions ?? {};
      expect(options.projectService, file).toBe(true);
      expect(options.disallowAutomaticSingleRunInference, file).toBe(true);
    }
  });
});
