/**
 * @module runner/run/suite-process
 * The host's side of one trusted test process: reads its channel (the harness's records and the
 * bridge's frames), relays each frame to the subject, keeps a watchdog on the test running, and
 * accounts each test as it settles (its fault, the subject's deaths, the run's budget, the
 * fail-fast rule). Invariants: a record names a test of this process or is ignored; nothing read
 * from the channel is coerced (strings are checked, everything else dropped); a test the run's
 * deadline cut is `budget-exhausted` and never counts for fail-fast; a frame's answer is
 * bounded by the test's limit and the run's deadline.
 */
import type { RunLimits, Runtime } from "@bouts/contracts";
import type { SandboxControl, SandboxOutcome } from "../sandbox/sandbox.ts";
import { expectedResultName } from "../sandbox/runtime.ts";
import { str, type ProcessEnd, type ResultRecord, type SuiteTest } from "./suite-verdicts.ts";
import type { FailFastRule } from "./budget.ts";
import { createLineSplitter, describeEnd, type Frame, type SubjectHost } from "./subject.ts";

/** Time a test process gets to start (interpreter, framework, imports) before its first test. */
const START_GRACE_MS = 10_000;
/** Slack on top of a test's limit before the host kills its process. */
const KILL_GRACE_MS = 1_000;
/** A fault this close to the run's deadline is the budget running out, not the subject's doing. */
export const BUDGET_SLACK_MS = 100;

/** What the watch needs of the suite's options. */
export interface TestProcessOptions {
  runtime: Runtime;
  limits: RunLimits;
  /** Epoch ms after which nothing may run (the run's wall-clock budget). */
  runDeadline: number;
  subject: SubjectHost;
  failFast?: FailFastRule;
}

/** The test running now. */
interface Running {
  name: string;
  startedAt: number;
  deathsAtStart: number;
  fault: Frame | null;
  /** The run's deadline cut this test short. */
  budgetCut: boolean;
}

/** Watches one trusted test process from before its launch to its end. */
export class TestProcessWatch {
  /** Feeds the process's channel output, line by line. */
  readonly onChannel: (chunk: Buffer) => void;
  readonly #opts: TestProcessOptions;
  readonly #byResultName: Map<string, SuiteTest>;
  readonly #results = new Map<string, ResultRecord[]>();
  readonly #faults = new Map<string, Frame>();
  readonly #subjectDied = new Map<string, number>();
  readonly #budgetCut = new Set<string>();
  #running: Running | null = null;
  #control: SandboxControl | null = null;
  #killedRunning: string | null = null;
  /** Whether any test of this process started: if none did, its end is the submission's doing. */
  #anyStarted = false;
  #watchdog: NodeJS.Timeout | undefined;
  #relay: Promise<void> = Promise.resolve();

  /** Starts the watchdog: the process gets `START_GRACE_MS` to start its first test. */
  constructor(tests: SuiteTest[], opts: TestProcessOptions) {
    this.#opts = opts;
    this.#byResultName = new Map(tests.map((t) => [expectedResultName(opts.runtime, t), t]));
    this.onChannel = createLineSplitter((line) => this.#onLine(line));
    this.#arm(START_GRACE_MS, () => this.#killFor(null));
  }

  /** The sandbox's control of the process: to answer frames and to kill it. */
  attach(control: SandboxControl): void {
    this.#control = control;
  }

  /**
   * Once the process has ended: stops the watchdog, waits for the frames in flight, settles the
   * test still running, and says what the process left behind.
   */
  async end(outcome: SandboxOutcome): Promise<ProcessEnd | null> {
    clearTimeout(this.#watchdog);
    await this.#relay;
    if (!outcome.started) return null;
    const stillRunning = this.#running;
    // The sandbox's wall clock is the run's deadline: a test it cut short ran out of budget.
    if (
      stillRunning &&
      (outcome.timedOut || Date.now() >= this.#opts.runDeadline - BUDGET_SLACK_MS)
    )
      stillRunning.budgetCut = true;
    if (stillRunning) this.#settle(stillRunning);
    const killedRunning = this.#killedRunning;
    return {
      results: this.#results,
      faults: this.#faults,
      subjectDied: this.#subjectDied,
      budgetCut: this.#budgetCut,
      stillRunning: stillRunning?.name ?? null,
      killedRunning,
      anyStarted: this.#anyStarted,
      abnormal: killedRunning !== null || outcome.signal !== null || outcome.timedOut,
      why:
        killedRunning === null && outcome.signal === "SIGKILL" && !outcome.timedOut
          ? "the test process did not start its tests in time"
          : describeEnd(outcome),
    };
  }

  #arm(ms: number, onFire: () => void): void {
    clearTimeout(this.#watchdog);
    this.#watchdog = setTimeout(onFire, Math.max(1, ms));
  }

  #killFor(name: string | null): void {
    this.#killedRunning = name;
    this.#control?.kill();
  }

  /**
   * A subject sitting at its process cap (a fork bomb) is at a resource limit, even when it
   * still answers: it counts as a fault for the fail-fast rule.
   */
  #atProcessCap(): string | null {
    const { limits, subject } = this.#opts;
    const tasks = subject.countTasks();
    return tasks >= limits.maxProcesses - 1
      ? `the subject was at its process cap (${tasks} of ${limits.maxProcesses} tasks)`
      : null;
  }

  /** Accounts a test that ended: its fault and deaths, then the fail-fast rule (or the budget). */
  #settle(r: Running): void {
    const { limits, subject, failFast } = this.#opts;
    if (r.fault) this.#faults.set(r.name, r.fault);
    const died = subject.deaths - r.deathsAtStart;
    if (died > 0) this.#subjectDied.set(r.name, died);
    if (r.budgetCut) return void this.#budgetCut.add(r.name);
    const fault = r.fault
      ? `${str(r.fault.fault)}: ${str(r.fault.message)}`
      : died > 0
        ? "the subject ended during the test"
        : this.#killedRunning === r.name ||
            (this.#results.get(r.name) ?? []).some((rec) => rec.status === "timeout")
          ? `the test outlived its ${limits.testTimeoutMs} ms limit`
          : this.#atProcessCap();
    const trip = failFast?.record(this.#byResultName.get(r.name)?.id ?? r.name, fault);
    if (trip) subject.retire(trip.reason);
  }

  #onLine(line: string): void {
    if (line.trim() === "") return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return;
    }
    if (!v || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (typeof o.k === "string") this.#onRecord(o);
    else if (typeof o.t === "string") this.#onFrame(o as Frame);
  }

  /** A harness record: a test starts, reports a result, reports a fault, or finishes. */
  #onRecord(rec: Record<string, unknown>): void {
    if (typeof rec.name !== "string") return;
    if (rec.k === "start") this.#onStart(rec.name);
    else if (rec.k === "result") {
      if (!this.#byResultName.has(rec.name)) return;
      const list = this.#results.get(rec.name) ?? [];
      this.#results.set(rec.name, [...list, rec as unknown as ResultRecord]);
      // node:test reports once per test; pytest reports its phases, then "finish".
      if (this.#opts.runtime === "node22") this.#finish(rec.name);
    } else if (rec.k === "fault") {
      const r = this.#running;
      if (r && r.name === rec.name && !r.fault)
        r.fault = { t: "fault", fault: rec.fault, message: rec.message };
    } else if (rec.k === "finish") this.#finish(rec.name);
  }

  #onStart(name: string): void {
    if (!this.#byResultName.has(name)) return;
    this.#anyStarted = true;
    if (this.#running) this.#settle(this.#running);
    this.#running = {
      name,
      startedAt: Date.now(),
      deathsAtStart: this.#opts.subject.deaths,
      fault: null,
      budgetCut: false,
    };
    this.#arm(this.#opts.limits.testTimeoutMs + KILL_GRACE_MS, () => this.#killFor(name));
  }

  #finish(name: string): void {
    const r = this.#running;
    if (r && r.name === name) {
      this.#settle(r);
      this.#running = null;
      this.#arm(START_GRACE_MS, () => this.#killFor(null));
    }
  }

  /** A bridge frame: relayed to the subject in order, its answer written back to the process. */
  #onFrame(frame: Frame): void {
    const { limits, runDeadline, subject } = this.#opts;
    this.#relay = this.#relay.then(async () => {
      const r = this.#running;
      const left = r ? r.startedAt + limits.testTimeoutMs - Date.now() : limits.testTimeoutMs;
      const deadline = Math.max(1, Math.min(left, runDeadline - Date.now()));
      const answer = await subject.request(frame, deadline);
      if (answer.t === "fault" && r && Date.now() >= runDeadline - BUDGET_SLACK_MS)
        r.budgetCut = true;
      else if (answer.t === "fault" && r && !r.fault) r.fault = answer;
      this.#control?.write(`${JSON.stringify(answer)}\n`);
    });
  }
}
