/**
 * @module runner/run/analyze
 * Observation records (fd 3 lines with a `k`) and printed output turned into cited evidence:
 * warnings, crashes, blocked network attempts, probing, reads of the tests' folder, fake pass
 * lines. Invariant: nothing here is a verdict; verdicts come only from the trusted test
 * process's result records (run/suite.ts).
 */
import type { ExploitTrigger, IntegrityTrigger, Runtime, TestStatus } from "@bouts/contracts";

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
const ESCAPE_PATH =
  /^\/proc\/1\/|^\/proc\/(self|\d+|thread-self)\/(mem|root)|^\/(root|home|var\/run|run|sys\/fs\/cgroup)(\/|$)|^\/etc\/shadow/;

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
