/**
 * The test order (scripts/lib/test-order.ts): the longest files first across every project,
 * from vitest's cached durations or else the committed figures; `sequence.groupOrder` first.
 */
import path from "node:path";
import type { TestSpecification, Vitest } from "vitest/node";
import { describe, expect, it } from "vitest";
import { DURATION_HINTS, expectedMs, LongestFirstSequencer } from "../lib/test-order.ts";

const ROOT = path.join(import.meta.dirname, "../..");

/** A specification as the sequencer reads it: its file, its project's name and group. */
const spec = (file: string, project: string, groupOrder = 0) =>
  ({
    moduleId: path.join(ROOT, file),
    project: { name: project, config: { sequence: { groupOrder } } },
  }) as unknown as TestSpecification;

const sequencer = (cached: Map<string, number>) =>
  new LongestFirstSequencer({
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
});
