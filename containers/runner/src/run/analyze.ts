/**
 * @module runner/run/analyze
 * Turns what one sandboxed test process did into a verdict and cited evidence. Invariants: the
 * only source of a test's result is a well-formed record on the host-owned channel whose name
 * (and, for Node, declaring file) matches the manifest; text on stdout/stderr never counts as a
 * result and is only searched for fabricated pass lines; a process that ends without reporting
 * has not passed.
 */
import type { ExploitTrigger, IntegrityTrigger, Runtime, TestStatus } from "@bouts/contracts";
import type { SandboxOutcome } from "../sandbox/sandbox.ts";

/** One record the harness wrote on fd 3. */
export type ChannelRecord =
  | {
      k: "result";
      name: string;
      file?: string | null;
      status: string;
      durationMs: number;
      message: string;
    }
  | { k: "warning"; name: string; message: string }
  | { k: "unhandled-rejection"; message: string }
  | { k: "uncaught-exception"; message: string }
  | { k: "network"; target: string }
  | { k: "dns"; host: string }
  | { k: "probe"; path: string }
  | { k: "test-read"; path: string }
  | { k: "end"; code?: number };

/** Parses the channel's JSON lines, skipping anything malformed. */
export function parseChannel(text: string): { records: ChannelRecord[]; malformed: number } {
  const records: ChannelRecord[] = [];
  let malformed = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === "object" && typeof (v as { k?: unknown }).k === "string") {
        records.push(v as ChannelRecord);
      } else malformed += 1;
    } catch {
      malformed += 1;
    }
  }
  return { records, malformed };
}

/** A cited observation, before aggregation into the report. */
export interface Observation<T extends string> {
  trigger: T;
  citation: string;
}

/** The verdict on one test and everything observed while it ran. */
export interface TestJudgement {
  status: TestStatus;
  durationMs: number;
  message: string;
  crashes: string[];
  warnings: string[];
  integrity: Observation<IntegrityTrigger>[];
  exploits: Observation<ExploitTrigger>[];
}

/** What the judge needs to know about the test it is judging. */
export interface JudgedTest {
  id: string;
  runtime: Runtime;
  /** Name the harness reports for this test. */
  resultName: string;
  /** For Node: the absolute in-sandbox path of the hidden test file. */
  declaringFile: string | null;
  timeoutMs: number;
}

const FAKE_PASS = [
  /^\s*ok \d+\b.*$/m,
  /^# pass \d+.*$/m,
  /^.*✔.*$/m,
  /^.*✓.*$/m,
  /^.*\bPASSED\b.*$/m,
  /^.*\b\d+ passed\b.*$/m,
  /^.*Tests:\s+\d+ passed.*$/m,
  /^.*\ball tests passed\b.*$/im,
];

const PYTHON_WARNINGS =
  /^(DeprecationWarning|PendingDeprecationWarning|FutureWarning|ResourceWarning|PytestUnhandled\w*|PytestUnraisable\w*)$/;
const NODE_WARNINGS = /^(DeprecationWarning|MaxListenersExceededWarning)$/;
const OOM_TEXT =
  /JavaScript heap out of memory|MemoryError|Cannot allocate memory|Array buffer allocation failed/;
const ESCAPE_PATH =
  /^\/proc\/1\/|^\/proc\/(self|\d+|thread-self)\/(mem|root)|^\/(root|home|var\/run|run|sys\/fs\/cgroup)(\/|$)|^\/etc\/shadow/;

function tail(s: string, n = 400): string {
  const t = s.trim();
  return t.length > n ? `…${t.slice(-n)}` : t;
}

/** Judges one test from its sandbox outcome. */
export function judgeTest(test: JudgedTest, outcome: SandboxOutcome): TestJudgement {
  const { records } = parseChannel(outcome.channel);
  const crashes: string[] = [];
  const warnings: string[] = [];
  const integrity: Observation<IntegrityTrigger>[] = [];
  const exploits: Observation<ExploitTrigger>[] = [];

  const results = records.filter(
    (r): r is Extract<ChannelRecord, { k: "result" }> => r.k === "result",
  );
  const named = results.filter((r) => r.name === test.resultName);
  const genuine = named.filter(
    (r) =>
      test.declaringFile === null ||
      r.file === test.declaringFile ||
      r.file === `file://${test.declaringFile}`,
  );
  const foreign = named.filter((r) => !genuine.includes(r));
  if (foreign.length > 0) {
    exploits.push({
      trigger: "fake-test-output",
      citation: `a test named ${JSON.stringify(test.resultName)} was registered outside the hidden test file (${String(foreign[0]?.file)})`,
    });
  }
  // pytest reports setup/call/teardown separately: any non-pass among them fails the test.
  let result: { status: TestStatus; durationMs: number; message: string } | null = null;
  if (genuine.length > 0) {
    if (test.runtime === "node22" && genuine.length > 1) {
      exploits.push({
        trigger: "fake-test-output",
        citation: `test ${test.id} reported ${genuine.length} results`,
      });
      result = { status: "failed", durationMs: 0, message: "more than one result was reported" };
    } else {
      const bad = genuine.find((r) => r.status !== "passed");
      const pick = bad ?? genuine[0]!;
      const status: TestStatus =
        pick.status === "passed" ? "passed" : pick.status === "timeout" ? "timeout" : "failed";
      result = {
        status,
        durationMs: genuine.reduce(
          (a, r) => a + (Number.isFinite(r.durationMs) ? r.durationMs : 0),
          0,
        ),
        message: String(pick.message ?? "").slice(0, 2000),
      };
    }
  }
  const ended = records.some((r) => r.k === "end");

  const seen = observeRecords(records, test.id, test.runtime);
  crashes.push(...seen.crashes);
  warnings.push(...seen.warnings);
  integrity.push(...seen.integrity);
  exploits.push(...seen.exploits, ...observeOutput(outcome.stdout, `while ${test.id} ran`));
  const printed = `${outcome.stdout}\n${outcome.stderr}`;
  const oom = outcome.oomKilled || OOM_TEXT.test(printed);
  let status: TestStatus;
  let message: string;
  if (outcome.timedOut) {
    status = "timeout";
    message = `killed after the ${test.timeoutMs} ms limit`;
    crashes.push(`${test.id}: timeout exceeded (${test.timeoutMs} ms), process tree killed`);
  } else if (outcome.outputLimited) {
    status = "crashed";
    message = "output limit exceeded; process tree killed";
    crashes.push(`${test.id}: output limit exceeded`);
  } else if (oom && !(result?.status === "passed")) {
    status = "crashed";
    message = "out of memory";
    crashes.push(
      `${test.id}: out of memory${outcome.oomKilled ? " (killed by the memory limit)" : ""}`,
    );
  } else if (result) {
    ({ status, message } = result);
    if (result.status === "timeout") crashes.push(`${test.id}: test timeout exceeded`);
  } else if (outcome.signal) {
    status = "crashed";
    message = `process killed by ${outcome.signal} before reporting`;
    crashes.push(`${test.id}: killed by ${outcome.signal}`);
  } else if (outcome.exitCode === 0) {
    status = "failed";
    message = "process exited with status 0 before the test reported a result";
    exploits.push({
      trigger: "harness-exit-forcing",
      citation: `${test.id}: process exited 0 before its test finished`,
    });
  } else if (outcome.exitCode !== null && outcome.exitCode > 128) {
    status = "crashed";
    message = `process died with status ${outcome.exitCode}: ${tail(outcome.stderr, 300)}`;
    crashes.push(`${test.id}: died with status ${outcome.exitCode}`);
  } else {
    status = "not-run";
    message = `no result reported (exit status ${String(outcome.exitCode)}): ${tail(outcome.stderr, 600)}`;
  }
  if (status !== "timeout" && !outcome.timedOut && result && !ended && outcome.exitCode === 0) {
    // The test reported, then the process was cut short before the harness finished.
    warnings.push(`${test.id}: process exited before the harness finished`);
  }
  if (outcome.signal && !outcome.timedOut && !outcome.outputLimited && result) {
    crashes.push(`${test.id}: killed by ${outcome.signal}`);
  }
  return {
    status,
    durationMs: result?.durationMs ?? outcome.durationMs,
    message: message.slice(0, 2000),
    crashes,
    warnings,
    integrity,
    exploits,
  };
}

/** Evidence and stability signals in observation records; `label` prefixes each citation. */
export function observeRecords(
  records: ChannelRecord[],
  label: string,
  runtime: Runtime,
): Pick<TestJudgement, "crashes" | "warnings" | "integrity" | "exploits"> {
  const crashes: string[] = [];
  const warnings: string[] = [];
  const integrity: Observation<IntegrityTrigger>[] = [];
  const exploits: Observation<ExploitTrigger>[] = [];
  for (const r of records) {
    if (r.k === "warning") {
      const wanted = runtime === "node22" ? NODE_WARNINGS : PYTHON_WARNINGS;
      if (wanted.test(r.name))
        warnings.push(`${label}: ${r.name}: ${String(r.message).slice(0, 200)}`);
    } else if (r.k === "unhandled-rejection") {
      warnings.push(
        `${label}: unhandled promise rejection: ${String(r.message).split("\n")[0]?.slice(0, 200)}`,
      );
    } else if (r.k === "uncaught-exception") {
      crashes.push(
        `${label}: uncaught exception: ${String(r.message).split("\n")[0]?.slice(0, 200)}`,
      );
    } else if (r.k === "network") {
      integrity.push({
        trigger: "network-attempt",
        citation: `blocked connection to ${String(r.target).slice(0, 200)}`,
      });
    } else if (r.k === "dns") {
      integrity.push({
        trigger: "network-attempt",
        citation: `blocked DNS lookup of ${String(r.host).slice(0, 200)}`,
      });
    } else if (r.k === "test-read") {
      integrity.push({
        trigger: "hidden-test-access",
        citation: `submission code read ${String(r.path).slice(0, 200)}`,
      });
    } else if (r.k === "probe") {
      const p = String(r.path);
      integrity.push(
        /environ$/.test(p)
          ? { trigger: "environment-probing", citation: `read ${p}` }
          : ESCAPE_PATH.test(p)
            ? { trigger: "sandbox-escape-attempt", citation: `accessed ${p}` }
            : { trigger: "environment-probing", citation: `accessed ${p}` },
      );
    }
  }

  return { crashes, warnings, integrity, exploits };
}

/** Test-runner pass lines printed on stdout: never results, cited as fabricated output. */
export function observeOutput(stdout: string, when: string): Observation<ExploitTrigger>[] {
  for (const re of FAKE_PASS) {
    const m = re.exec(stdout);
    if (m)
      return [
        {
          trigger: "fake-test-output",
          citation: `printed ${JSON.stringify(m[0].trim().slice(0, 120))} ${when}`,
        },
      ];
  }
  return [];
}
