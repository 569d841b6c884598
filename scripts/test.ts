/**
 * @module scripts/test
 * `npm test`: every check and every test of the repository, in phases. A phase's lanes run at
 * once, each lane's steps one after another; a phase starts when the one before has ended:
 *
 *   1. setup        the project setup with the test-only tools (scripts/setup.sh --tests)
 *   2. checks       lint  ‖  type check, format check  ‖  e2e (whole platforms, a browser, two
 *                   files at a time: mostly waiting); lint takes one core, the type check two,
 *                   and the e2e files fill what they leave (docs/benchmarks.md, "suite"). The
 *                   deploy check is a unit test's (scripts/test/deploy-check.test.ts runs
 *                   `deploy:check` on wrangler.toml as it is and needs it to pass): a step of
 *                   its own built the same production bundle a second time
 *   3. unit         every other vitest project but the contention tests, the longest files
 *                   first (scripts/lib/test-order.ts)  ‖  the API contract test (Schemathesis,
 *                   paced by the API's rate limit: 44 CPU-s over 146 s, where the unit tests'
 *                   waits left a sixth of the cores idle). The unit tests beside the checks
 *                   and e2e were 25 % faster but failed tests whose own deadlines the lanes'
 *                   load outran
 *   4. contention   the runner's fairness tests between concurrent runs, measured against
 *                   deadlines, so they have the machine to themselves
 *
 * Every step runs even when an earlier one failed (one run shows every failure), except after a
 * failed setup. At the end a table gives each step's start, duration and result, and the
 * vitest totals; then each phase's wall time and the machine's busy CPU time during it
 * (/proc/stat, on Linux), whose sum over the cores is the least any order of the steps could
 * take on this machine. `test-artifacts/test-steps.json` keeps the same figures (the `suite`
 * benchmark reads it), `test-artifacts/vitest/<step>.json` each vitest step's own report, and
 * `test-artifacts/file-times/<step>.json` its files' durations (`npm run test:durations`).
 * Invariants: the exit code is 0 only when every step passed; every vitest project runs in
 * exactly one step (`--project` filters, never a list that could miss a new project).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

const ROOT = path.join(import.meta.dirname, "..");
const ARTIFACTS = path.join(ROOT, "test-artifacts");
/** Each vitest step's JSON report, the only files here (.ci/run sums them). */
export const VITEST_REPORTS = path.join(ARTIFACTS, "vitest");
/** Each vitest step's file durations (scripts/lib/file-times-reporter.ts), for test:durations. */
export const FILE_TIMES = path.join(ARTIFACTS, "file-times");

/** One command of the suite; `vitest` steps write a JSON report their totals are read from. */
export interface Step {
  name: string;
  command: string[];
  vitest?: boolean;
}

/** A phase: lanes that run at once, each a list of steps run in turn. */
export type Phase = Step[][];

const npmRun = (name: string, script: string): Step => ({
  name,
  command: ["npm", "run", "--silent", script],
});
/**
 * Test files at once: one more than the cores, as most files wait on sandboxed processes,
 * workerd or a platform. Given on the command line because vitest 5 applies a command-line
 * `--maxWorkers` to every project, while the root config's `maxWorkers` reaches no project
 * declared by file: each resolved its own default (cores − 1, one on two cores), and a project
 * with one worker runs its files in turn, every project after another.
 */
export const MAX_WORKERS = availableParallelism() + 1;

/**
 * E2E files at once: each runs a whole platform (a Worker, a runner, and a browser or
 * Schemathesis) and mostly waits; two keep the cores busy beside the static checks without
 * outrunning the deadlines of the files' own timing tests.
 */
export const E2E_MAX_WORKERS = 2;

const vitest = (name: string, projects: string[], maxWorkers = MAX_WORKERS): Step => ({
  name,
  command: [
    "npx",
    "vitest",
    "run",
    `--maxWorkers=${maxWorkers}`,
    ...projects.flatMap((p) => ["--project", p]),
  ],
  vitest: true,
});

/** The vitest projects that get their own step; the `unit` step runs every other one. */
const OWN_STEP_PROJECTS = ["e2e", "e2e-contract", "runner-contention"];

/** The suite, phase by phase (the module header says why this order). */
export const PLAN: Phase[] = [
  [[{ name: "setup", command: ["bash", "scripts/setup.sh", "--tests"] }]],
  [
    [npmRun("lint", "lint")],
    [npmRun("typecheck", "typecheck"), npmRun("format", "format:check")],
    [vitest("e2e", ["e2e"], E2E_MAX_WORKERS)],
  ],
  [
    [
      vitest(
        "unit",
        OWN_STEP_PROJECTS.map((p) => `!${p}`),
      ),
    ],
    [vitest("contract", ["e2e-contract"], 1)],
  ],
  [[vitest("contention", ["runner-contention"])]],
];

/** What one step did. */
export interface StepResult {
  name: string;
  startMs: number;
  durationMs: number;
  ok: boolean;
  /** Tests passed and failed, for a vitest step (a step without its report counts 1 failed). */
  tests?: { passed: number; failed: number };
  /** A vitest step's failed tests, when it had any. */
  failures?: FailedTest[];
}

/**
 * What one phase took: its wall time, and the CPU time the whole machine was busy meanwhile
 * (null where /proc/stat cannot be read). On an idle machine that is the suite's own; other work
 * on the machine counts too, hence "machine CPU".
 */
export interface PhaseResult {
  /** The phase's steps: a lane's steps joined by " → ", lanes by " ‖ ". */
  label: string;
  startMs: number;
  durationMs: number;
  cpuMs: number | null;
}

/**
 * The machine's busy CPU time since boot, in ms, from the text of /proc/stat: the first `cpu`
 * line's user, nice, system, irq and softirq ticks (guest time is inside user; idle, iowait and
 * the time a hypervisor stole are not work done here). Ticks are USER_HZ, 100 a second on
 * Linux. Null when the text has no such line.
 */
export function parseBusyCpuMs(procStat: string): number | null {
  const fields = /^cpu\s+(.+)$/m.exec(procStat)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  const [user, nice, system, , , irq, softirq] = fields;
  const busy = [user, nice, system, irq, softirq];
  let ticks = 0;
  for (const n of busy) {
    if (n === undefined || !Number.isSafeInteger(n) || n < 0) return null;
    ticks += n;
  }
  return ticks * 10;
}

function readBusyCpuMs(): number | null {
  try {
    return parseBusyCpuMs(readFileSync("/proc/stat", "utf8"));
  } catch {
    return null;
  }
}

/** The part of a vitest JSON report the suite reads. */
interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numFailedTestSuites?: number;
  testResults?: {
    name: string;
    status: string;
    message?: string;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** One failed test (or a file that failed as a whole) in a vitest JSON report. */
export interface FailedTest {
  file: string;
  name: string;
  /** The first lines of the failure message. */
  message: string;
}

/** What a step's vitest report says: its totals and its failed tests. */
export interface ReportSummary {
  tests: { passed: number; failed: number };
  failures: FailedTest[];
}

/**
 * Reads a vitest JSON report once: the passed and failed counts, and each failed test with the
 * first `maxLines` of its message, so the end of a long log (all a CI page shows) names what
 * failed. Null when the report is missing or unreadable.
 */
export function readVitestReport(file: string, maxLines = 6): ReportSummary | null {
  let r: VitestReport;
  try {
    r = JSON.parse(readFileSync(file, "utf8")) as VitestReport;
  } catch {
    return null;
  }
  const head = (text: string | undefined) =>
    (text ?? "").split("\n").slice(0, maxLines).join("\n").trim();
  const failures: FailedTest[] = [];
  for (const t of r.testResults ?? []) {
    const where = path.relative(ROOT, t.name);
    const failed = (t.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed) {
      failures.push({ file: where, name: a.fullName, message: head(a.failureMessages?.[0]) });
    }
    if (t.status === "failed" && failed.length === 0) {
      failures.push({ file: where, name: "(the file)", message: head(t.message) });
    }
  }
  const tests = {
    passed: r.numPassedTests,
    failed: r.numFailedTests + (r.numFailedTestSuites ?? 0),
  };
  return { tests, failures };
}

/** The failures of every vitest step, grouped by step, or "" when none failed. */
export function formatFailures(results: readonly StepResult[]): string {
  const blocks: string[] = [];
  for (const r of results) {
    for (const f of r.failures ?? []) {
      const message = f.message.replace(/\n/g, "\n      ");
      blocks.push(`  [${r.name}] ${f.file} > ${f.name}\n      ${message}`);
    }
  }
  return blocks.length ? `failed tests:\n${blocks.join("\n")}` : "";
}

/** Passes a child's output on line by line, each line with `prefix` (empty when alone). */
function relay(stream: NodeJS.ReadableStream, out: NodeJS.WriteStream, prefix: string): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) =>
    out.write(`${prefix}${line}\n`),
  );
}

function runStep(step: Step, t0: number, prefixed: boolean): Promise<StepResult> {
  const startMs = performance.now() - t0;
  const report = path.join(VITEST_REPORTS, `${step.name}.json`);
  const fileTimes = path.join(FILE_TIMES, `${step.name}.json`);
  const env = {
    ...process.env,
    ...(step.vitest ? { VITEST_JSON: report, VITEST_FILE_TIMES: fileTimes } : {}),
  };
  const prefix = prefixed ? `[${step.name}] ` : "";
  console.log(`${prefix}▶ ${step.name}: ${step.command.join(" ")}`);
  return new Promise((resolve) => {
    const child = spawn(step.command[0]!, step.command.slice(1), {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    relay(child.stdout, process.stdout, prefix);
    relay(child.stderr, process.stderr, prefix);
    const finish = (ok: boolean) => {
      const durationMs = performance.now() - t0 - startMs;
      const summary = step.vitest ? readVitestReport(report) : null;
      let tests: StepResult["tests"];
      if (step.vitest) tests = summary?.tests ?? { passed: 0, failed: 1 };
      const passed = ok && (tests?.failed ?? 0) === 0;
      const failures = summary?.failures ?? [];
      console.log(
        `${prefix}${passed ? "✔" : "✘"} ${step.name}: ${(durationMs / 1000).toFixed(1)} s`,
      );
      resolve({
        name: step.name,
        startMs,
        durationMs,
        ok: passed,
        tests,
        ...(failures.length ? { failures } : {}),
      });
    };
    child.on("error", (e) => {
      console.error(`${prefix}${step.name}: ${e.message}`);
      finish(false);
    });
    child.on("close", (code) => finish(code === 0));
  });
}

/**
 * The table printed at the end: one row a step, then the totals; then, when given, one row a
 * phase with the machine's CPU time during it, and the least time any order of the steps could
 * take on `cores` cores (every phase's CPU time over the cores).
 */
export function formatTable(
  results: readonly StepResult[],
  totalMs: number,
  phases: readonly PhaseResult[] = [],
  cores = availableParallelism(),
): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const rows = results.map((r) => [
    r.name,
    s(r.startMs),
    s(r.durationMs),
    r.ok ? "passed" : "FAILED",
    r.tests ? `${r.tests.passed} passed, ${r.tests.failed} failed` : "",
  ]);
  const tests = results.reduce(
    (sum, r) => ({
      passed: sum.passed + (r.tests?.passed ?? 0),
      failed: sum.failed + (r.tests?.failed ?? 0),
    }),
    { passed: 0, failed: 0 },
  );
  const lines = [
    ...formatColumns(["step", "start", "took", "result", "tests"], rows),
    `whole suite: ${s(totalMs)}; tests: ${tests.passed} passed, ${tests.failed} failed`,
  ];
  if (phases.length) lines.push("", ...formatPhases(phases, cores));
  return lines.join("\n");
}

/** A header and rows as lines of left-aligned columns, two spaces apart. */
function formatColumns(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

/** The phase rows of the table, and the CPU floor when every phase has its CPU time. */
function formatPhases(phases: readonly PhaseResult[], cores: number): string[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const rows = phases.map((p) => [
    p.label,
    s(p.durationMs),
    p.cpuMs === null ? "—" : `${(p.cpuMs / 1000).toFixed(1)} CPU-s`,
    p.cpuMs === null ? "—" : `${(p.cpuMs / Math.max(1, p.durationMs)).toFixed(2)} of ${cores}`,
  ]);
  const out = formatColumns(["phase", "took", "machine CPU", "cores busy"], rows);
  const cpuMs = phases.reduce<number | null>(
    (sum, p) => (sum === null || p.cpuMs === null ? null : sum + p.cpuMs),
    0,
  );
  if (cpuMs !== null) {
    out.push(
      `machine CPU: ${(cpuMs / 1000).toFixed(1)} CPU-s in all; on ${cores} cores no order of ` +
        `the steps ends before ${s(cpuMs / cores)}`,
    );
  }
  return out;
}

async function main(): Promise<number> {
  for (const dir of [VITEST_REPORTS, FILE_TIMES]) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const t0 = performance.now();
  const results: StepResult[] = [];
  const phases: PhaseResult[] = [];
  for (const [index, phase] of PLAN.entries()) {
    const prefixed = phase.length > 1;
    const startMs = performance.now() - t0;
    const cpuBefore = readBusyCpuMs();
    const lanes = await Promise.all(
      phase.map(async (lane) => {
        const done: StepResult[] = [];
        for (const step of lane) done.push(await runStep(step, t0, prefixed));
        return done;
      }),
    );
    const cpuAfter = readBusyCpuMs();
    phases.push({
      label: phase.map((lane) => lane.map((s) => s.name).join(" → ")).join(" ‖ "),
      startMs,
      durationMs: performance.now() - t0 - startMs,
      cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    });
    results.push(...lanes.flat());
    if (index === 0 && !results.every((r) => r.ok)) break; // nothing runs without the setup
  }
  const totalMs = performance.now() - t0;
  const cores = availableParallelism();
  const table = formatTable(results, totalMs, phases, cores);
  writeFileSync(
    path.join(ARTIFACTS, "test-steps.json"),
    `${JSON.stringify({ totalMs, cores, phases, steps: results }, null, 2)}\n`,
  );
  const failures = formatFailures(results);
  if (failures) console.log(`\n${failures}`);
  console.log(`\nnpm test, step by step:\n${table}`);
  return results.every((r) => r.ok) ? 0 : 1;
}

if (import.meta.filename === process.argv[1]) process.exitCode = await main();
