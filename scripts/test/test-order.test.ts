/**
 * The test order (scripts/lib/test-order.ts): the longest files first across every project,
 * from vitest's cached durations or else the committed figures; `sequence.groupOrder` first;
 * the long files of a project that mostly waits never take every worker at once; the short files
 * come last, a project at a time (a project that shares its workerd across files keeps it only
 * while the next file is its own).
 */
import path from "node:path";
import type { TestSpecification, Vitest } from "vitest/node";
import { describe, expect, it } from "vitest";
import {
  DURATION_HINTS,
  expectedMs,
  LongestFirstSequencer,
  planDispatch,
  type PlannedFile,
  SHORT_FILE_MS,
  WAITING_PROJECTS,
} from "../lib/test-order.ts";

const ROOT = path.join(import.meta.dirname, "../..");

/** A specification as the sequencer reads it: its file, its project's name and group. */
const spec = (file: string, project: string, groupOrder = 0) =>
  ({
    moduleId: path.join(ROOT, file),
    project: { name: project, config: { sequence: { groupOrder } } },
  }) as unknown as TestSpecification;

/** Files and vitest's cached durations from one table: [file, project, ms]. */
const filesWithDurations = (rows: [file: string, project: string, ms: number][]) => ({
  files: rows.map(([file, project]) => spec(file, project)),
  cached: new Map(rows.map(([file, , ms]) => [file, ms])),
});

const sequencer = (cached: Map<string, number>, maxWorkers?: number) =>
  new LongestFirstSequencer({
    ...(maxWorkers === undefined ? {} : { config: { maxWorkers } }),
    cache: {
      getTestSpecificationResult: (s: TestSpecification) => {
        const duration = cached.get(path.relative(ROOT, s.moduleId));
        return duration === undefined ? undefined : { duration, failed: false };
      },
    },
  } as unknown as Vitest);

describe("the test order", () => {
  it("starts the longest files first, whatever their project is called", async () => {
    const files = [
      spec("packages/adversarial/test/a.test.ts", "adversarial"),
      spec("workers/score/test/versions-integration.test.ts", "score"),
      spec("containers/runner/test/scan/rules.test.ts", "runner"),
      spec("packages/result/test/b.test.ts", "result"),
    ];
    const sorted = await sequencer(new Map()).sort(files);
    // Vitest's own order would be adversarial, result, runner, score: the longest file last.
    expect(sorted.map((s) => s.project.name)).toEqual(["score", "runner", "adversarial", "result"]);
  });

  it("prefers vitest's cached duration to the committed figure", async () => {
    const files = [
      spec("workers/score/test/versions-integration.test.ts", "score"),
      spec("packages/result/test/b.test.ts", "result"),
    ];
    const cached = new Map([["packages/result/test/b.test.ts", 999_000]]);
    expect((await sequencer(cached).sort(files)).map((s) => s.project.name)).toEqual([
      "result",
      "score",
    ]);
    expect(expectedMs(path.join(ROOT, "packages/result/test/b.test.ts"), undefined)).toBe(0);
    expect(expectedMs(path.join(ROOT, "x.test.ts"), 12)).toBe(12);
  });

  it("keeps a later group later, however long its files", async () => {
    const files = [
      spec("e2e/contract.test.ts", "e2e", 1),
      spec("packages/result/test/b.test.ts", "result"),
    ];
    const hints = await sequencer(new Map([["e2e/contract.test.ts", 500_000]])).sort(files);
    expect(hints.map((s) => s.project.name)).toEqual(["result", "e2e"]);
  });

  it("has figures for the slowest files of the tree, by their paths from the root", () => {
    expect(DURATION_HINTS["workers/score/test/versions-integration.test.ts"]).toBeGreaterThan(30);
    for (const file of Object.keys(DURATION_HINTS)) expect(file).not.toMatch(/^\/|\\/);
  });

  it("never starts a waiting project's files on every worker: one is left to a file that computes", async () => {
    const { files, cached } = filesWithDurations([
      ["workers/score/test/versions-integration.test.ts", "score", 150_000],
      ["workers/score/test/agent-trust-integration.test.ts", "score", 130_000],
      ["workers/score/test/baselines-integration.test.ts", "score", 60_000],
      ["containers/runner/test/do-nothing.test.ts", "runner", 30_000],
      ["containers/runner/test/exploits-node.test.ts", "runner", 25_000],
    ]);
    const names = async (workers?: number) =>
      (await sequencer(cached, workers).sort(files)).map((s) => path.basename(s.moduleId));
    // Three workers: two score files, then a runner file while both run, then the next runner
    // file (do-nothing ends at 30 s, before either score file), then baselines.
    expect(await names(3)).toEqual([
      "versions-integration.test.ts",
      "agent-trust-integration.test.ts",
      "do-nothing.test.ts",
      "exploits-node.test.ts",
      "baselines-integration.test.ts",
    ]);
    // One worker (or vitest's config unread): longest first, as before.
    expect(await names(1)).toEqual(await names());
    expect((await names()).slice(0, 3)).toEqual([
      "versions-integration.test.ts",
      "agent-trust-integration.test.ts",
      "baselines-integration.test.ts",
    ]);
    expect(WAITING_PROJECTS.has("score")).toBe(true);
  });

  it("runs the short files after the long ones, one project's in a row, so a shared runtime is kept", async () => {
    const { files, cached } = filesWithDurations([
      ["workers/ingest/test/a-unit.test.ts", "ingest", 1_000],
      ["workers/leaderboard/test/b-unit.test.ts", "leaderboard", 3_000],
      ["workers/ingest/test/c-unit.test.ts", "ingest", 2_000],
      ["workers/score/test/config-unit.test.ts", "score", 100],
      ["workers/leaderboard/test/d-unit.test.ts", "leaderboard", 1_500],
      ["workers/ingest/test/e-integration.test.ts", "ingest", SHORT_FILE_MS],
      ["workers/score/test/versions-integration.test.ts", "score", 150_000],
    ]);
    const names = (await sequencer(cached, 3).sort(files)).map((s) =>
      path.relative(ROOT, s.moduleId),
    );
    // Long files first (e-integration is long: not under the bound), longest first, across
    // projects; then leaderboard's short files (4.5 s in all), ingest's (3 s), score's, each
    // project's longest first. Longest-first alone would interleave b, c, d, a across projects.
    expect(names).toEqual([
      "workers/score/test/versions-integration.test.ts",
      "workers/ingest/test/e-integration.test.ts",
      "workers/leaderboard/test/b-unit.test.ts",
      "workers/leaderboard/test/d-unit.test.ts",
      "workers/ingest/test/c-unit.test.ts",
      "workers/ingest/test/a-unit.test.ts",
      "workers/score/test/config-unit.test.ts",
    ]);
  });

  it("plays vitest's dispatch forward: a waiting file starts once another has ended", () => {
    const f = (item: string, s: number, waits: boolean): PlannedFile<string> => ({
      item,
      ms: s * 1000,
      waits,
    });
    // Two workers: w1 and w2 may not run together; c (10 s) runs beside w1, then w2 after it.
    expect(planDispatch([f("w1", 100, true), f("w2", 90, true), f("c", 10, false)], 2)).toEqual([
      "w1",
      "c",
      "w2",
    ]);
    // Only waiting files: they go in turn, longest first, and none is lost.
    expect(planDispatch([f("a", 3, true), f("b", 2, true), f("c", 1, true)], 3)).toEqual([
      "a",
      "b",
      "c",
    ]);
    // Files of no length (no figure yet) fill in without moving the clock.
    expect(
      planDispatch([f("w1", 50, true), f("w2", 40, true), f("z1", 0, false), f("z2", 0, false)], 2),
    ).toEqual(["w1", "z1", "z2", "w2"]);
    expect(planDispatch([], 3)).toEqual([]);
  });
});
