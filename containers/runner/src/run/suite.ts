/**
 * @module runner/run/suite
 * Runs hidden tests in trusted test processes, one per test file, each in its own sandbox with no
 * submission code in it; the bridge's calls are relayed to the run's subject. Invariants: a verdict
 * comes only from the trusted process's result records; a test during which the subject faulted or
 * died fails, whatever it reported; every test gets at most one judgement, and one unless the run's
 * budget ran out.
 */
import type { TestStatus } from "@bouts/contracts";
import { buildTrustedInvocation, CHANNEL_DIR, expectedResultName } from "../sandbox/runtime.ts";
import { runSandboxed, type SandboxControl } from "../sandbox/sandbox.ts";
import type { TestJudgement } from "./analyze.ts";
import type { FailFastRule } from "./budget.ts";
import {
  buildProcessLimits,
  createLineSplitter,
  describeEnd,
  type Frame,
  type RunProcessOptions,
  type SubjectHost,
} from "./subject.ts";

/** One test to run. */
export interface SuiteTest {
  id: string;
  file: string;
  name: string;
}

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

/** Time a test process gets to start (interpreter, framework, imports) before its first test. */
const START_GRACE_MS = 10_000;
/** Slack on top of a test's limit before the host kills its process. */
const KILL_GRACE_MS = 1_000;
/** A fault this close to the run's deadline is the budget running out, not the subject's doing. */
const BUDGET_SLACK_MS = 100;

interface ResultRecord {
  name: string;
  file?: string | null;
  status: string;
  durationMs: number;
  message: string;
}

interface Running {
  name: string;
  startedAt: number;
  deathsAtStart: number;
  fault: Frame | null;
  /** The run's deadline cut this test short. */
  budgetCut: boolean;
}

/** A field's text when it is a string, else "" (never a coercion of what came over a channel). */
function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function judgement(status: TestStatus, message: string, durationMs = 0): TestJudgement {
  return {
    status,
    durationMs,
    message: message.slice(0, 2000),
    crashes: [],
    warnings: [],
    integrity: [],
    exploits: [],
  };
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

async function runFile(
  file: string,
  tests: SuiteTest[],
  opts: SuiteOptions,
  launch: number,
): Promise<{ judged: Map<string, TestJudgement>; infrastructure: string | null; why: string }> {
  const { limits, runtime } = opts;
  const byResultName = new Map(tests.map((t) => [expectedResultName(runtime, t), t]));
  const names = [...new Set(tests.map((t) => t.name))];
  const inv = buildTrustedInvocation(
    runtime,
    opts.paths,
    opts.workspace,
    opts.depsLayer,
    file,
    names,
    limits.memoryMb,
    limits.testTimeoutMs,
  );
  const results = new Map<string, ResultRecord[]>();
  const faults = new Map<string, Frame>();
  const subjectDied = new Map<string, number>();
  let running: Running | null = null;
  let control: SandboxControl | null = null;
  let killedRunning: string | null = null;
  /** Whether any test of this process started: if none did, its end is the submission's doing. */
  let anyStarted = false;
  let watchdog: NodeJS.Timeout | undefined;
  let relay: Promise<void> = Promise.resolve();

  const arm = (ms: number, onFire: () => void) => {
    clearTimeout(watchdog);
    watchdog = setTimeout(onFire, Math.max(1, ms));
  };
  const killFor = (name: string | null) => {
    killedRunning = name;
    control?.kill();
  };
  const budgetCut = new Set<string>();
  // A subject sitting at its process cap (a fork bomb) is at a resource limit, even when it
  // still answers: it counts as a fault for the fail-fast rule.
  const atProcessCap = (): string | null => {
    const tasks = opts.subject.countTasks();
    return tasks >= limits.maxProcesses - 1
      ? `the subject was at its process cap (${tasks} of ${limits.maxProcesses} tasks)`
      : null;
  };
  const settle = (r: Running) => {
    if (r.fault) faults.set(r.name, r.fault);
    const died = opts.subject.deaths - r.deathsAtStart;
    if (died > 0) subjectDied.set(r.name, died);
    if (r.budgetCut) return void budgetCut.add(r.name);
    const fault = r.fault
      ? `${str(r.fault.fault)}: ${str(r.fault.message)}`
      : died > 0
        ? "the subject ended during the test"
        : killedRunning === r.name ||
            (results.get(r.name) ?? []).some((rec) => rec.status === "timeout")
          ? `the test outlived its ${limits.testTimeoutMs} ms limit`
          : atProcessCap();
    const trip = opts.failFast?.record(byResultName.get(r.name)?.id ?? r.name, fault);
    if (trip) opts.subject.retire(trip.reason);
  };
  arm(START_GRACE_MS, () => killFor(null));

  const onRecord = (rec: Record<string, unknown>) => {
    if (rec.k === "start" && typeof rec.name === "string") {
      const t = byResultName.get(rec.name);
      if (!t) return;
      anyStarted = true;
      if (running) settle(running);
      running = {
        name: rec.name,
        startedAt: Date.now(),
        deathsAtStart: opts.subject.deaths,
        fault: null,
        budgetCut: false,
      };
      const name = rec.name;
      arm(limits.testTimeoutMs + KILL_GRACE_MS, () => killFor(name));
    } else if (rec.k === "result" && typeof rec.name === "string") {
      if (!byResultName.has(rec.name)) return;
      results.set(rec.name, [...(results.get(rec.name) ?? []), rec as unknown as ResultRecord]);
      // node:test reports once per test; pytest reports its phases, then "finish".
      if (runtime === "node22") finish(rec.name);
    } else if (rec.k === "fault" && typeof rec.name === "string") {
      const r = running;
      if (r && r.name === rec.name && !r.fault)
        r.fault = { t: "fault", fault: rec.fault, message: rec.message };
    } else if (rec.k === "finish" && typeof rec.name === "string") finish(rec.name);
  };
  const finish = (name: string) => {
    const r = running;
    if (r && r.name === name) {
      settle(r);
      running = null;
      arm(START_GRACE_MS, () => killFor(null));
    }
  };
  const onFrame = (frame: Frame) => {
    relay = relay.then(async () => {
      const r = running;
      const left = r ? r.startedAt + limits.testTimeoutMs - Date.now() : limits.testTimeoutMs;
      const deadline = Math.max(1, Math.min(left, opts.runDeadline - Date.now()));
      const answer = await opts.subject.request(frame, deadline);
      if (answer.t === "fault" && r && Date.now() >= opts.runDeadline - BUDGET_SLACK_MS)
        r.budgetCut = true;
      else if (answer.t === "fault" && r && !r.fault) r.fault = answer;
      control?.write(`${JSON.stringify(answer)}\n`);
    });
  };
  const onLine = (line: string) => {
    if (line.trim() === "") return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return;
    }
    if (!v || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (typeof o.k === "string") onRecord(o);
    else if (typeof o.t === "string") onFrame(o as Frame);
  };
  const onChannel = createLineSplitter(onLine);

  const outcome = await runSandboxed({
    bwrapBin: opts.bwrapBin,
    hostUid: opts.hostUid,
    argv: inv.argv,
    env: inv.env,
    cwd: inv.cwd,
    readOnlyMounts: [...inv.mounts, { src: opts.channelDir, dest: CHANNEL_DIR }],
    cgroups: opts.cgroups,
    name: `${opts.name}-tests-${launch}`,
    stdin: true,
    onChannel,
    onControl: (c) => (control = c),
    limits: buildProcessLimits(limits, runtime, opts.cgroups, opts.runDeadline),
  });
  clearTimeout(watchdog);
  await relay;
  if (!outcome.started)
    return {
      judged: new Map(),
      infrastructure: `sandbox did not start: ${outcome.startError}`,
      why: "",
    };
  const stillRunning = running as Running | null;
  // The sandbox's wall clock is the run's deadline: a test it cut short ran out of budget.
  if (stillRunning && (outcome.timedOut || Date.now() >= opts.runDeadline - BUDGET_SLACK_MS))
    stillRunning.budgetCut = true;
  if (stillRunning) settle(stillRunning);
  const abnormal = killedRunning !== null || outcome.signal !== null || outcome.timedOut;
  const why =
    killedRunning === null && outcome.signal === "SIGKILL" && !outcome.timedOut
      ? "the test process did not start its tests in time"
      : describeEnd(outcome);

  const judged = new Map<string, TestJudgement>();
  for (const t of tests) {
    const rn = expectedResultName(runtime, t);
    const recs = (results.get(rn) ?? []).filter(
      (r) =>
        runtime !== "node22" ||
        r.file === null ||
        r.file === undefined ||
        r.file === `/work/tests/${t.file}` ||
        r.file === `file:///work/tests/${t.file}`,
    );
    const fault = faults.get(rn);
    const died = subjectDied.get(rn) ?? 0;
    const wasRunning = stillRunning?.name === rn;
    let j: TestJudgement | null = null;
    if (budgetCut.has(rn)) {
      j = judgement(
        "budget-exhausted",
        `the run's budget of ${limits.runWallMs} ms ran out while this test ran`,
      );
    } else if (fault) {
      const kind = str(fault.fault);
      j = judgement(
        kind === "timeout" ? "timeout" : kind === "unavailable" ? "failed" : "crashed",
        `the subject ${kind === "timeout" ? "timed out" : kind === "unavailable" ? "was unavailable" : kind === "protocol" ? "broke the protocol" : "crashed"}: ${str(fault.message)}`,
      );
      if (kind !== "unavailable") j.crashes.push(`${t.id}: ${str(fault.message).slice(0, 300)}`);
    } else if (died > 0 && (recs.length > 0 || wasRunning)) {
      j = judgement("crashed", "the subject ended while this test ran");
      j.crashes.push(`${t.id}: the subject ended while this test ran`);
    } else if (recs.length > 0 && !(wasRunning && killedRunning === rn)) {
      const bad = recs.find((r) => r.status !== "passed");
      const pick = bad ?? recs[0]!;
      const status: TestStatus =
        pick.status === "passed" ? "passed" : pick.status === "timeout" ? "timeout" : "failed";
      j = judgement(
        status,
        str(pick.message),
        recs.reduce((a, r) => a + (Number.isFinite(r.durationMs) ? r.durationMs : 0), 0),
      );
      if (runtime === "node22" && recs.length > 1) {
        j = judgement("failed", "more than one result was reported");
      }
      if (status === "timeout") j.crashes.push(`${t.id}: test timeout exceeded`);
    } else if (wasRunning && killedRunning === rn) {
      j = judgement("timeout", `killed after the ${limits.testTimeoutMs} ms limit`);
      j.crashes.push(`${t.id}: timeout exceeded (${limits.testTimeoutMs} ms), test process killed`);
    } else if (wasRunning) {
      j = judgement("crashed", `the test process ${why}`);
      j.crashes.push(`${t.id}: the test process ${why}`);
    } else if (!anyStarted) {
      j = judgement("failed", `the test process ended before its first test: ${why}`);
      j.crashes.push(`${t.id}: the test process ended before its first test: ${why}`);
    } else if (!abnormal) {
      j = judgement("not-run", `no result reported: ${why}`);
    }
    if (j) judged.set(t.id, j);
  }
  return { judged, infrastructure: null, why };
}
