/**
 * @module runner/run/suite
 * Runs hidden tests in trusted test processes, one per test file, each in its own sandbox with no
 * submission code in it; the bridge's calls are relayed to the run's subject. Invariants: a verdict
 * comes only from the trusted process's result records; a test during which the subject faulted or
 * died fails, whatever it reported; every test gets at most one judgement, and one unless the run's
 * budget ran out.
 */
import { buildTrustedInvocation, CHANNEL_DIR } from "../sandbox/runtime.ts";
import { runSandboxed, type SandboxOutcome } from "../sandbox/sandbox.ts";
import type { TestJudgement } from "./analyze.ts";
import type { FailFastRule } from "./budget.ts";
import { buildProcessLimits, type RunProcessOptions, type SubjectHost } from "./subject.ts";
import { TestProcessWatch } from "./suite-process.ts";
import { judgement, judgeTests, type SuiteTest } from "./suite-verdicts.ts";

export type { SuiteTest };

export interface SuiteOptions extends RunProcessOptions {
  subject: SubjectHost;
  onTest?: (id: string, judgement: TestJudgement) => void;
  /** The K-consecutive rule; absent, a broken subject is only bounded by its restarts. */
  failFast?: FailFastRule;
}

/**
 * What the suite produced; `infrastructure` is set when a sandbox could not start. Tests left
 * without a judgement were not started because the run's budget ran out.
 */
export interface SuiteResult {
  judgements: Map<string, TestJudgement>;
  infrastructure: string | null;
}

/**
 * Runs `tests`, grouped by file, and judges every one of them. A test that outlives its own limit
 * is failed and its process killed; the tests left in the file run in a new process. A test cut by
 * the run's deadline (run/budget.ts) is `budget-exhausted`, and no test starts after it. Once the
 * subject has faulted on K consecutive tests it is retired, and the tests left fail at once.
 */
export async function runSuite(tests: SuiteTest[], opts: SuiteOptions): Promise<SuiteResult> {
  const judgements = new Map<string, TestJudgement>();
  const byFile = new Map<string, SuiteTest[]>();
  for (const t of tests) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
  let launch = 0;
  for (const [file, group] of byFile) {
    let left = group;
    while (left.length > 0) {
      if (opts.runDeadline - Date.now() <= 0) return { judgements, infrastructure: null };
      const trip = opts.failFast?.tripped;
      if (trip) {
        // The subject is retired: these tests would only collect instant faults.
        for (const t of left) {
          opts.failFast?.record(t.id, "not run");
          const j = judgement("failed", `not run: the run gave up on the subject: ${trip.reason}`);
          judgements.set(t.id, j);
          opts.onTest?.(t.id, j);
        }
        break;
      }
      const r = await runFile(file, left, opts, launch++);
      if (r.infrastructure) return { judgements, infrastructure: r.infrastructure };
      for (const [id, j] of r.judged) {
        judgements.set(id, j);
        opts.onTest?.(id, j);
      }
      if (opts.runDeadline - Date.now() <= 0) return { judgements, infrastructure: null };
      const next = left.filter((t) => !judgements.has(t.id));
      if (next.length === left.length) {
        // No progress: the process ended before any test started. Its code is the pristine
        // tests, the harness and the bridge built from the subject's exports; QA proved the
        // first two on the reference, so what is left is the submission's doing (a bridge it
        // broke): the tests fail, with the evidence, never `not-run` with a clean stability.
        for (const t of next) {
          const j = judgement("failed", `the test process ended before its first test: ${r.why}`);
          j.crashes.push(`${t.id}: the test process ended before its first test: ${r.why}`);
          judgements.set(t.id, j);
          opts.onTest?.(t.id, j);
        }
        break;
      }
      left = next;
    }
  }
  return { judgements, infrastructure: null };
}

/** Launches one trusted test process for `tests` (one file) in its own sandbox. */
function launchTestProcess(
  file: string,
  tests: SuiteTest[],
  opts: SuiteOptions,
  launch: number,
  watch: TestProcessWatch,
): Promise<SandboxOutcome> {
  const { limits, runtime } = opts;
  const inv = buildTrustedInvocation(
    runtime,
    opts.paths,
    opts.workspace,
    opts.depsLayer,
    file,
    [...new Set(tests.map((t) => t.name))],
    limits.memoryMb,
    limits.testTimeoutMs,
  );
  return runSandboxed({
    bwrapBin: opts.bwrapBin,
    hostUid: opts.hostUid,
    argv: inv.argv,
    env: inv.env,
    cwd: inv.cwd,
    readOnlyMounts: [...inv.mounts, { src: opts.channelDir, dest: CHANNEL_DIR }],
    cgroups: opts.cgroups,
    name: `${opts.name}-tests-${launch}`,
    stdin: true,
    onChannel: watch.onChannel,
    onControl: (c) => watch.attach(c),
    limits: buildProcessLimits(limits, runtime, opts.cgroups, opts.runDeadline),
  });
}

/**
 * Runs one process over the tests left in a file and judges the tests it reached; `why` says
 * how the process ended.
 */
async function runFile(
  file: string,
  tests: SuiteTest[],
  opts: SuiteOptions,
  launch: number,
): Promise<{ judged: Map<string, TestJudgement>; infrastructure: string | null; why: string }> {
  const watch = new TestProcessWatch(tests, opts);
  const outcome = await launchTestProcess(file, tests, opts, launch, watch);
  const end = await watch.end(outcome);
  if (!end)
    return {
      judged: new Map(),
      infrastructure: `sandbox did not start: ${outcome.startError}`,
      why: "",
    };
  return {
    judged: judgeTests(tests, end, opts.runtime, opts.limits),
    infrastructure: null,
    why: end.why,
  };
}
