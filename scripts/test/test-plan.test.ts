/**
 * `npm test`'s plan (scripts/test.ts): every vitest project runs in exactly one step, with the
 * worker count given on the command line; the static checks share a phase with e2e, the unit
 * tests have the next with the API contract test beside them, the timing-sensitive contention
 * tests the last to themselves; the table and totals read what vitest reported.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  E2E_MAX_WORKERS,
  formatFailures,
  formatTable,
  MAX_WORKERS,
  parseBusyCpuMs,
  PLAN,
  readVitestReport,
} from "../test.ts";
import { vitestConfigFiles } from "../lib/vitest-projects.ts";

const ROOT = path.join(import.meta.dirname, "../..");

/** Each vitest project's name, from its config file. */
function projectNames(): string[] {
  return vitestConfigFiles().flatMap((file) => {
    // The project's name is the `name` of its `test` block (a config may hold other names).
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const name = /\btest:\s*\{[^}]*?\bname:\s*"([^"]+)"/.exec(text)?.[1];
    if (!name) throw new Error(`${file}: no test.name`);
    return [name];
  });
}

/** The `--project` filters of a step's command. */
const filters = (command: string[]) =>
  command.flatMap((word, i) => (command[i - 1] === "--project" ? [word] : []));

describe("npm test's plan", () => {
  const steps = PLAN.flat(2);
  const vitestSteps = steps.filter((s) => s.vitest);

  it("runs every vitest project in exactly one step", () => {
    const names = projectNames();
    expect(names).toContain("e2e");
    expect(names).toContain("e2e-contract");
    expect(names).toContain("runner-contention");
    expect(names).toContain("score");
    for (const name of names) {
      const runs = vitestSteps.filter((s) => {
        const f = filters(s.command);
        const positive = f.filter((p) => !p.startsWith("!"));
        return positive.length > 0 ? positive.includes(name) : !f.includes(`!${name}`);
      });
      expect(
        runs.map((s) => s.name),
        name,
      ).toHaveLength(1);
    }
  });

  it("runs the checks beside e2e, then the unit tests beside the contract test, and the contention tests alone, last", () => {
    // Lint takes one core and the type check two (docs/benchmarks.md, "suite"); e2e mostly
    // waits. The contract test waits most of all (the API's rate limit paces it), so it fills
    // the unit tests' idle cores instead of holding the checks' phase open.
    const checks = PLAN[1]!;
    expect(checks.map((lane) => lane.map((s) => s.name))).toEqual([
      ["lint"],
      ["typecheck", "format"],
      ["e2e"],
    ]);
    expect(PLAN).toHaveLength(4);
    expect(PLAN.at(-2)).toEqual([
      [expect.objectContaining({ name: "unit" })],
      [expect.objectContaining({ name: "contract" })],
    ]);
    expect(filters(PLAN.at(-2)![1]![0]!.command)).toEqual(["e2e-contract"]);
    expect(PLAN.at(-1)).toEqual([[expect.objectContaining({ name: "contention" })]]);
    expect(PLAN[0]!.flat().map((s) => s.name)).toEqual(["setup"]);
  });

  it("gives every project seconds of margin per test, as its files share the cores", () => {
    // The default 5 s failed a CPU-bound property test under the three lanes' load.
    // The contention tests run alone, one file at a time, each test with its own deadlines.
    const configs = vitestConfigFiles().filter((f) => !f.endsWith("vitest.contention.config.ts"));
    expect(configs.length).toBeGreaterThanOrEqual(10);
    for (const file of configs) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      const ms = Number(/\btestTimeout:\s*([\d_]+)/.exec(text)?.[1]?.replaceAll("_", ""));
      expect(ms, file).toBeGreaterThanOrEqual(30_000);
    }
  });

  it("lets the files of every project but e2e share a worker's module cache", () => {
    // Each file re-imported its modules: 236 against 195 CPU-s for the runner's project alone
    // (docs/benchmarks.md, "suite"). The workerd projects share one workerd a worker the same way.
    const configs = vitestConfigFiles().filter(
      (f) => !f.startsWith("e2e/") && !f.endsWith("vitest.contention.config.ts"),
    );
    expect(configs.length).toBeGreaterThanOrEqual(8);
    for (const file of configs)
      expect(readFileSync(path.join(ROOT, file), "utf8"), file).toMatch(/\bisolate: false\b/);
  });

  it("gives every vitest step the worker count on the command line", () => {
    // vitest 5 passes a root config's maxWorkers to no project declared by file.
    const workers: Record<string, number> = { e2e: E2E_MAX_WORKERS, contract: 1 };
    for (const step of vitestSteps)
      expect(step.command, step.name).toContain(
        `--maxWorkers=${workers[step.name] ?? MAX_WORKERS}`,
      );
    expect(MAX_WORKERS).toBeGreaterThanOrEqual(2);
  });

  it("runs e2e files two at a time, in npm test and in a plain vitest run alike", () => {
    // One at a time left phase two's cores idle while each file waited (docs/benchmarks.md).
    expect(E2E_MAX_WORKERS).toBe(2);
    const text = readFileSync(path.join(ROOT, "e2e/vitest.config.ts"), "utf8");
    expect(text).not.toMatch(/fileParallelism:\s*false/);
    expect(/\bmaxWorkers:\s*(\d+)/.exec(text)?.[1]).toBe(String(E2E_MAX_WORKERS));
  });
});

describe("the step table", () => {
  it("reads a vitest report's totals, and nothing from a missing one", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bouts-test-plan-"));
    const file = path.join(dir, "unit.json");
    writeFileSync(
      file,
      JSON.stringify({ numPassedTests: 7, numFailedTests: 1, numFailedTestSuites: 1 }),
    );
    expect(readVitestReport(file)?.tests).toEqual({ passed: 7, failed: 2 });
    expect(readVitestReport(path.join(dir, "absent.json"))).toBeNull();
    writeFileSync(file, "{");
    expect(readVitestReport(file)).toBeNull();
  });

  it("prints a row a step and the totals", () => {
    const table = formatTable(
      [
        { name: "lint", startMs: 1_000, durationMs: 80_000, ok: true },
        {
          name: "unit",
          startMs: 90_000,
          durationMs: 200_500,
          ok: false,
          tests: { passed: 10, failed: 2 },
        },
      ],
      290_500,
    );
    const lines = table.split("\n");
    expect(lines[0]).toMatch(/^step\s+start\s+took\s+result\s+tests$/);
    expect(lines[1]).toMatch(/^lint\s+1\.0 s\s+80\.0 s\s+passed$/);
    expect(lines[2]).toMatch(/^unit\s+90\.0 s\s+200\.5 s\s+FAILED\s+10 passed, 2 failed$/);
    expect(lines[3]).toBe("whole suite: 290.5 s; tests: 10 passed, 2 failed");
  });

  it("adds each phase's machine CPU and the least time any order of the steps could take", () => {
    const steps = [{ name: "unit", startMs: 0, durationMs: 300_000, ok: true }];
    const table = formatTable(
      steps,
      400_000,
      [
        { label: "setup", startMs: 0, durationMs: 10_000, cpuMs: 12_340 },
        { label: "lint → typecheck ‖ e2e", startMs: 10_000, durationMs: 220_000, cpuMs: 424_000 },
        { label: "unit", startMs: 230_000, durationMs: 170_000, cpuMs: 333_333 },
      ],
      2,
    );
    const lines = table.split("\n");
    expect(lines[2]).toMatch(/^whole suite: 400\.0 s;/);
    expect(lines[3]).toBe("");
    expect(lines[4]).toMatch(/^phase\s+took\s+machine CPU\s+cores busy$/);
    expect(lines[5]).toMatch(/^setup\s+10\.0 s\s+12\.3 CPU-s\s+1\.23 of 2$/);
    expect(lines[6]).toMatch(/^lint → typecheck ‖ e2e\s+220\.0 s\s+424\.0 CPU-s\s+1\.93 of 2$/);
    expect(lines[7]).toMatch(/^unit\s+170\.0 s\s+333\.3 CPU-s\s+1\.96 of 2$/);
    // (12.34 + 424 + 333.333) / 2 = 384.8365 s.
    expect(lines[8]).toBe(
      "machine CPU: 769.7 CPU-s in all; on 2 cores no order of the steps ends before 384.8 s",
    );
    // Without /proc/stat a phase has no CPU time, and no floor is claimed.
    const partial = formatTable(
      steps,
      400_000,
      [{ label: "unit", startMs: 0, durationMs: 170_000, cpuMs: null }],
      2,
    ).split("\n");
    expect(partial.at(-1)).toMatch(/^unit\s+170\.0 s\s+—\s+—$/);
    expect(partial.join("\n")).not.toContain("no order of the steps");
  });

  it("reads the machine's busy CPU time from /proc/stat, and nothing from other text", () => {
    const stat = [
      "cpu  1000 20 300 90000 400 5 6 7 0 0",
      "cpu0 500 10 150 45000 200 2 3 3 0 0",
      "intr 123",
    ].join("\n");
    // user + nice + system + irq + softirq, in ticks of 10 ms: idle, iowait and steal are out.
    expect(parseBusyCpuMs(stat)).toBe((1000 + 20 + 300 + 5 + 6) * 10);
    expect(parseBusyCpuMs("cpu0 1 2 3 4 5 6 7")).toBeNull();
    expect(parseBusyCpuMs("cpu  1 2 3")).toBeNull();
    expect(parseBusyCpuMs("cpu  1 2 x 4 5 6 7")).toBeNull();
    expect(parseBusyCpuMs("")).toBeNull();
  });

  it("names each failed test with the head of its message, and a file that failed whole", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bouts-plan-"));
    const file = path.join(dir, "e2e.json");
    writeFileSync(
      file,
      JSON.stringify({
        numPassedTests: 1,
        numFailedTests: 1,
        testResults: [
          {
            name: path.join(ROOT, "e2e/pages.test.ts"),
            status: "failed",
            assertionResults: [
              { fullName: "pages shows a board", status: "passed", failureMessages: [] },
              {
                fullName: "pages escapes a name",
                status: "failed",
                failureMessages: [
                  "AssertionError: expected 1 to be 2\nline 2\n" + "at x\n".repeat(40),
                ],
              },
            ],
          },
          {
            name: path.join(ROOT, "e2e/unattended.test.ts"),
            status: "failed",
            message: "Hook timed out in 300000ms",
            assertionResults: [],
          },
        ],
      }),
    );
    const failures = readVitestReport(file)!.failures;
    expect(failures.map((f) => [f.file, f.name])).toEqual([
      ["e2e/pages.test.ts", "pages escapes a name"],
      ["e2e/unattended.test.ts", "(the file)"],
    ]);
    expect(failures[0]!.message).toMatch(/^AssertionError: expected 1 to be 2\nline 2\n/);
    expect(failures[1]!.message).toBe("Hook timed out in 300000ms");
    expect(failures[0]!.message.split("\n")).toHaveLength(6);
    expect(readVitestReport(path.join(dir, "absent.json"))?.failures ?? []).toEqual([]);

    const text = formatFailures([
      { name: "lint", startMs: 0, durationMs: 1, ok: true },
      { name: "e2e", startMs: 0, durationMs: 1, ok: false, failures },
    ]);
    expect(text.split("\n")[0]).toBe("failed tests:");
    expect(text).toContain(
      "  [e2e] e2e/pages.test.ts > pages escapes a name\n      AssertionError",
    );
    expect(text).toContain("  [e2e] e2e/unattended.test.ts > (the file)\n      Hook timed out");
    expect(formatFailures([{ name: "lint", startMs: 0, durationMs: 1, ok: true }])).toBe("");
  });
});
