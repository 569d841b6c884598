/**
 * @module scripts/lib/test-order
 * The order in which vitest hands test files to its workers: the longest first, across every
 * project, so that the slowest files (the score role's integration files with the real runner,
 * the scanner's rules) start at once instead of last. Vitest's own order takes the projects
 * one after another by name (`score` near the end) and, on a fresh clone with no results cache,
 * each project's files by size, so a 135-second file could start after most of the others.
 * A file's length is vitest's cached duration when there is one (a machine that has run the
 * tests), else its figure in test-durations.json (measured, refreshed by
 * `npm run test:durations` after `npm test`), else 0. `sequence.groupOrder` still comes first.
 * Invariant: only the order changes; every file still runs, in its own project and pool.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const ROOT = path.join(import.meta.dirname, "../..");

/** Seconds per test file (path from the root), as measured; files of a few seconds are left out. */
export const DURATION_HINTS = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "test-durations.json"), "utf8"),
) as Record<string, number>;

/** The expected length of a file in ms: the cached result, else the hint, else 0. */
export function expectedMs(
  file: string,
  cached: number | undefined,
  hints: Record<string, number> = DURATION_HINTS,
): number {
  if (cached !== undefined) return cached;
  return (hints[path.relative(ROOT, file).split(path.sep).join("/")] ?? 0) * 1000;
}

/** Longest first across projects; ties by path, so the order is the same on every machine. */
export class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const ms = new Map(
      files.map((spec) => [
        spec,
        expectedMs(spec.moduleId, cache.getTestSpecificationResult(spec)?.duration),
      ]),
    );
    return Promise.resolve(
      [...files].sort(
        (a, b) =>
          a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
          ms.get(b)! - ms.get(a)! ||
          (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0),
      ),
    );
  }
}
