/**
 * @module scripts/lib/vitest-projects
 * The vitest projects of the repository, as config-file globs: the root vitest.config.ts lists
 * exactly these, and the tests that hold rules over every project's config (placement, the
 * suite's plan, reproducible packing) read them from here, so a project added or merged is seen
 * by all of them at once (they each kept a glob of their own, and one missed the group-level
 * packages/vitest.config.ts).
 */
import { globSync } from "node:fs";
import path from "node:path";

/** Each project's config file, as globs from the repository root. */
export const VITEST_PROJECTS = [
  "packages/vitest.config.ts",
  "packages/*/vitest.config.ts",
  "containers/*/vitest.config.ts",
  "containers/runner/vitest.contention.config.ts",
  "workers/*/vitest.config.ts",
  "scripts/vitest.config.ts",
  "e2e/vitest.config.ts",
  "e2e/vitest.contract.config.ts",
] as const;

/** The config files the globs name, relative to the root, sorted. */
export function vitestConfigFiles(): string[] {
  return globSync([...VITEST_PROJECTS], { cwd: path.join(import.meta.dirname, "../..") }).sort();
}

/** The configs of the workspaces' projects (packages/, containers/, workers/). */
export function workspaceConfigFiles(): string[] {
  return vitestConfigFiles().filter((f) => /^(packages|containers|workers)\//.test(f));
}
