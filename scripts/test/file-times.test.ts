/**
 * Each test file's duration for the test order's figures (scripts/lib/file-times-reporter.ts):
 * tests and hooks, so a file whose `beforeAll` holds a worker counts for that time; only files
 * that ran to an end; paths from the root. One real vitest run checks the measure itself.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TestModule } from "vitest/node";
import { describe, expect, it } from "vitest";
import { FileTimesReporter } from "../lib/file-times-reporter.ts";
import { FILE_TIMES, VITEST_REPORTS } from "../test.ts";

const ROOT = path.join(import.meta.dirname, "../..");
/** Inside the checkout (gitignored), so the run's test file resolves vitest from node_modules. */
const ARTIFACTS = path.join(ROOT, "test-artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

/** A finished (or not) test module as the reporter reads it. */
const testModule = (file: string, state: string, duration: number) =>
  ({
    moduleId: path.join(ROOT, file),
    state: () => state,
    diagnostic: () => ({ duration }),
  }) as unknown as TestModule;

describe("the file times reporter", () => {
  it("writes each finished file's tests-and-hooks time, by its path from the root", () => {
    const dir = mkdtempSync(path.join(ARTIFACTS, "file-times-"));
    try {
      const out = path.join(dir, "unit.files.json");
      new FileTimesReporter(out).onTestRunEnd([
        testModule("workers/score/test/a-integration.test.ts", "passed", 61_234.6),
        testModule("containers/runner/test/b.test.ts", "failed", 900),
        testModule("packages/x/test/queued.test.ts", "queued", 0),
        testModule("packages/x/test/skipped.test.ts", "skipped", 0),
      ]);
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({
        "workers/score/test/a-integration.test.ts": 61_235,
        "containers/runner/test/b.test.ts": 900,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps npm test's file times out of the reports' folder, which .ci/run sums as reports", () => {
    expect(path.relative(VITEST_REPORTS, FILE_TIMES)).toMatch(/^\.\./);
    expect(readFileSync(path.join(ROOT, ".ci/run"), "utf8")).toContain(
      'dir = "test-artifacts/vitest"',
    );
    expect(path.relative(ROOT, VITEST_REPORTS)).toBe(path.join("test-artifacts", "vitest"));
  });

  it("counts a file's beforeAll, which the JSON report's test times leave out", () => {
    // A real vitest run (a child process, its own root) of one file whose beforeAll waits 1.5 s
    // and whose one test takes none: the JSON report's span is the test's, this file's is both.
    const dir = mkdtempSync(path.join(ARTIFACTS, "file-times-run-"));
    try {
      writeFileSync(
        path.join(dir, "slow-setup.test.ts"),
        [
          'import { beforeAll, it } from "vitest";',
          "beforeAll(() => new Promise((r) => setTimeout(r, 1500)));",
          'it("is quick", () => {});',
          "",
        ].join("\n"),
      );
      writeFileSync(
        path.join(dir, "vitest.config.ts"),
        [
          `import { FileTimesReporter } from ${JSON.stringify(path.join(ROOT, "scripts/lib/file-times-reporter.ts"))};`,
          "export default {",
          "  test: {",
          '    include: ["slow-setup.test.ts"],',
          `    reporters: [["json", { outputFile: "report.json" }], new FileTimesReporter(${JSON.stringify(path.join(dir, "report.files.json"))})],`,
          "  },",
          "};",
          "",
        ].join("\n"),
      );
      const run = spawnSync(
        process.execPath,
        [path.join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--root", dir],
        { cwd: dir, encoding: "utf8", env: { ...process.env, VITEST_JSON: "" } },
      );
      expect(run.status, run.stderr).toBe(0);
      const times = JSON.parse(readFileSync(path.join(dir, "report.files.json"), "utf8")) as Record<
        string,
        number
      >;
      const file = path.relative(ROOT, path.join(dir, "slow-setup.test.ts"));
      expect(Object.keys(times)).toEqual([file]);
      expect(times[file]).toBeGreaterThanOrEqual(1400);
      const report = JSON.parse(readFileSync(path.join(dir, "report.json"), "utf8")) as {
        testResults: { startTime: number; endTime: number }[];
      };
      const span = report.testResults[0]!.endTime - report.testResults[0]!.startTime;
      expect(span).toBeLessThan(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
