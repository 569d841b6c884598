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
 * One exception to longest-first: the long files of a project that mostly waits (WAITING_PROJECTS)
 * never take every worker at once, so that one worker always runs a file that computes (the
 * order is found by playing vitest's dispatch forward: each file goes to the worker free first).
 * The short files (under SHORT_FILE_MS) come after the long ones, one project after another: a
 * project whose files share a runtime (`isolate: false`, the workerd projects) keeps a worker's
 * runtime only while the next file in the queue is of the same project, so files of one project
 * in a row start its workerd a few times instead of once per file.
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

/**
 * Projects whose long files mostly wait rather than compute: the score role's integration files
 * run real submissions through the sandboxed runner and sit out hidden-test limits (notes-api's
 * partial solution hangs to its 10 s limit) and QA repeats. Three of them at once kept the two
 * cores 35–70 % busy for the first three minutes of the unit step (docs/benchmarks.md, "suite").
 */
export const WAITING_PROJECTS: ReadonlySet<string> = new Set(["score"]);

/**
 * Files expected to take less than this are short: after the long files, grouped by project.
 * Vitest (5.1) keeps a finished file's runner for the next one only when the file at the head of
 * its queue is of the same project and `isolate: false`; else the runner stops and the next file
 * of that project starts a new one (a workerd with every module: ~1.8 CPU-s, docs/benchmarks.md).
 */
export const SHORT_FILE_MS = 5_000;

/** A file to place: what it is, how long it should take, whether its project mostly waits. */
export interface PlannedFile<T> {
  item: T;
  ms: number;
  waits: boolean;
}

/**
 * The dispatch order for `workers` workers, from files sorted longest first: vitest gives the
 * next file to the worker that is free first, so this plays that forward and, at each worker's
 * turn, takes the first file that may start then. A waiting file may start only while fewer than
 * `workers − 1` others run (at least one may always run); when only waiting files are left they
 * go in turn. With one worker, or no waiting file, the order is the input's.
 * @example planDispatch([{ item: "a", ms: 90_000, waits: true }, …], 3)
 */
export function planDispatch<T>(files: readonly PlannedFile<T>[], workers: number): T[] {
  const slots = Math.max(1, Math.floor(workers));
  const cap = Math.max(1, slots - 1);
  const endsAt = new Array<number>(slots).fill(0);
  const waiting = new Array<boolean>(slots).fill(false);
  const left = [...files];
  const order: T[] = [];
  while (left.length > 0) {
    let slot = 0;
    for (let i = 1; i < slots; i++) if (endsAt[i]! < endsAt[slot]!) slot = i;
    const now = endsAt[slot]!;
    let others = 0;
    for (let i = 0; i < slots; i++) if (i !== slot && waiting[i] && endsAt[i]! > now) others++;
    const pick = Math.max(
      0,
      left.findIndex((f) => !f.waits || others < cap),
    );
    const [file] = left.splice(pick, 1);
    order.push(file!.item);
    endsAt[slot] = now + file!.ms;
    waiting[slot] = file!.waits;
  }
  return order;
}

/**
 * Longest first across projects (ties by path, so the order is the same on every machine), with
 * the waiting projects' long files spread out (planDispatch); then the short files, a project at
 * a time (the project with the most short-file time first); `sequence.groupOrder` first.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const ms = new Map(
      files.map((spec) => [
        spec,
        expectedMs(spec.moduleId, cache.getTestSpecificationResult(spec)?.duration),
      ]),
    );
    const isShort = (spec: TestSpecification) => ms.get(spec)! < SHORT_FILE_MS;
    const shortMs = new Map<string, number>();
    for (const spec of files.filter(isShort)) {
      const name = spec.project.name;
      shortMs.set(name, (shortMs.get(name) ?? 0) + ms.get(spec)!);
    }
    const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const sorted = [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        Number(isShort(a)) - Number(isShort(b)) ||
        (isShort(a)
          ? shortMs.get(b.project.name)! - shortMs.get(a.project.name)! ||
            byName(a.project.name, b.project.name)
          : 0) ||
        ms.get(b)! - ms.get(a)! ||
        byName(a.moduleId, b.moduleId),
    );
    // Groups run one after another, so each is planned on its own.
    const groups = new Map<number, TestSpecification[]>();
    for (const spec of sorted) {
      const g = spec.project.config.sequence.groupOrder;
      const group = groups.get(g) ?? [];
      group.push(spec);
      groups.set(g, group);
    }
    const workers = this.ctx.config?.maxWorkers ?? 1;
    return Promise.resolve(
      [...groups.values()].flatMap((group) =>
        planDispatch(
          group.map((spec) => ({
            item: spec,
            ms: ms.get(spec)!,
            waits: WAITING_PROJECTS.has(spec.project.name) && !isShort(spec),
          })),
          workers,
        ),
      ),
    );
  }
}
