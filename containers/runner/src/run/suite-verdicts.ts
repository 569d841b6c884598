/**
 * @module runner/run/suite-verdicts
 * The verdict of each test of one trusted test process, from what the process and the subject
 * left behind: result records, subject faults and deaths, the test cut by the run's budget, the
 * test killed at its limit, and how the process ended. Invariants: pure (no I/O, no clock);
 * every test gets at most one judgement; a test during which the subject faulted or died fails,
 * whatever it reported; a node test reporting more than one result fails.
 */
import type { RunLimits, Runtime, TestStatus } from "@bouts/contracts";
import { expectedResultName } from "../sandbox/runtime.ts";
import type { TestJudgement } from "./analyze.ts";
import type { Frame } from "./subject.ts";

/** One test as the suite runs it. */
export interface SuiteTest {
  id: string;
  file: string;
  name: string;
}

/** A result record written by the trusted harness. */
export interface ResultRecord {
  name: string;
  file?: string | null;
  status: string;
  durationMs: number;
  message: string;
}

/** What one test process left behind, keyed by each test's result name. */
export interface ProcessEnd {
  results: Map<string, ResultRecord[]>;
  faults: Map<string, Frame>;
  /** How many times the subject died during each test. */
  subjectDied: Map<string, number>;
  /** Tests the run's deadline cut short. */
  budgetCut: Set<string>;
  /** The test running when the process ended, if any. */
  stillRunning: string | null;
  /** The test whose limit killed the process (null: killed before any test started). */
  killedRunning: string | null;
  anyStarted: boolean;
  /** Killed, signalled or out of time. */
  abnormal: boolean;
  /** How the process ended, in words. */
  why: string;
}

/** A field's text when it is a string, else "" (never a coercion of what came over a channel). */
export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** A judgement with no evidence yet; the message is capped at 2,000 characters. */
export function judgement(status: TestStatus, message: string, durationMs = 0): TestJudgement {
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

/** The test's result records; a node record must name this test's file (or none). */
function recordsOf(t: SuiteTest, end: ProcessEnd, runtime: Runtime): ResultRecord[] {
  return (end.results.get(expectedResultName(runtime, t)) ?? []).filter(
    (r) =>
      runtime !== "node22" ||
      r.file === null ||
      r.file === undefined ||
      r.file === `/work/tests/${t.file}` ||
      r.file === `file:///work/tests/${t.file}`,
  );
}

/** A subject fault during the test: a timeout, an unavailable subject, or a crash. */
function judgeFault(t: SuiteTest, fault: Frame): TestJudgement {
  const kind = str(fault.fault);
  const j = judgement(
    kind === "timeout" ? "timeout" : kind === "unavailable" ? "failed" : "crashed",
    `the subject ${kind === "timeout" ? "timed out" : kind === "unavailable" ? "was unavailable" : kind === "protocol" ? "broke the protocol" : "crashed"}: ${str(fault.message)}`,
  );
  if (kind !== "unavailable") j.crashes.push(`${t.id}: ${str(fault.message).slice(0, 300)}`);
  return j;
}

/** The verdict the harness reported: the first non-passing record decides. */
function judgeRecords(t: SuiteTest, recs: ResultRecord[], runtime: Runtime): TestJudgement {
  const bad = recs.find((r) => r.status !== "passed");
  const pick = bad ?? recs[0]!;
  const status: TestStatus =
    pick.status === "passed" ? "passed" : pick.status === "timeout" ? "timeout" : "failed";
  let j = judgement(
    status,
    str(pick.message),
    recs.reduce((a, r) => a + (Number.isFinite(r.durationMs) ? r.durationMs : 0), 0),
  );
  if (runtime === "node22" && recs.length > 1) {
    j = judgement("failed", "more than one result was reported");
  }
  if (status === "timeout") j.crashes.push(`${t.id}: test timeout exceeded`);
  return j;
}

/** A judgement with one crash line saying the same. */
function crashed(status: TestStatus, message: string, crash: string): TestJudgement {
  const j = judgement(status, message);
  j.crashes.push(crash);
  return j;
}

/** One test's verdict; null when it was not started (left for another process). */
function judgeTest(
  t: SuiteTest,
  end: ProcessEnd,
  runtime: Runtime,
  limits: RunLimits,
): TestJudgement | null {
  const rn = expectedResultName(runtime, t);
  const recs = recordsOf(t, end, runtime);
  const fault = end.faults.get(rn);
  const died = end.subjectDied.get(rn) ?? 0;
  const wasRunning = end.stillRunning === rn;
  const killed = wasRunning && end.killedRunning === rn;
  const { why } = end;
  if (end.budgetCut.has(rn))
    return judgement(
      "budget-exhausted",
      `the run's budget of ${limits.runWallMs} ms ran out while this test ran`,
    );
  if (fault) return judgeFault(t, fault);
  if (died > 0 && (recs.length > 0 || wasRunning)) {
    const message = "the subject ended while this test ran";
    return crashed("crashed", message, `${t.id}: ${message}`);
  }
  if (recs.length > 0 && !killed) return judgeRecords(t, recs, runtime);
  if (killed)
    return crashed(
      "timeout",
      `killed after the ${limits.testTimeoutMs} ms limit`,
      `${t.id}: timeout exceeded (${limits.testTimeoutMs} ms), test process killed`,
    );
  if (wasRunning)
    return crashed("crashed", `the test process ${why}`, `${t.id}: the test process ${why}`);
  if (!end.anyStarted) {
    const message = `the test process ended before its first test: ${why}`;
    return crashed("failed", message, `${t.id}: ${message}`);
  }
  if (!end.abnormal) return judgement("not-run", `no result reported: ${why}`);
  return null;
}

/** The verdicts of the tests one process ran; a test it never reached has none. */
export function judgeTests(
  tests: SuiteTest[],
  end: ProcessEnd,
  runtime: Runtime,
  limits: RunLimits,
): Map<string, TestJudgement> {
  const judged = new Map<string, TestJudgement>();
  for (const t of tests) {
    const j = judgeTest(t, end, runtime, limits);
    if (j) judged.set(t.id, j);
  }
  return judged;
}
