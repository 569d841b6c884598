/**
 * @module runner/run/analyze
 * Observation records (fd 3 lines with a `k`) the subject's harness writes, checked field by
 * field and turned into cited evidence: warnings, crashes, blocked network attempts, probing,
 * reads of the tests' folder. Invariants: nothing here is a verdict (verdicts come only from the
 * trusted test process's result records, run/suite.ts); every value is type-checked before use
 * and never coerced (a subject controls every byte of these records, its harness included);
 * nothing here throws, whatever it is given.
 */
import type { ExploitTrigger, IntegrityTrigger, Runtime, TestStatus } from "@bouts/contracts";

/** One observation record of the subject's harness, every field checked to be a string. */
export type ObservedRecord =
  | { k: "warning"; name: string; message: string }
  | { k: "unhandled-rejection"; message: string }
  | { k: "uncaught-exception"; message: string }
  | { k: "network"; target: string }
  | { k: "dns"; host: string }
  | { k: "probe"; path: string }
  | { k: "test-read"; path: string };

/** Longest field text kept from a record (the harness writes at most 300 characters). */
const FIELD_CHARS = 300;

/** A string field of `v`, cut to FIELD_CHARS; null when absent or of any other type. */
function field(v: Record<string, unknown>, key: string): string | null {
  const x = Object.hasOwn(v, key) ? v[key] : undefined;
  return typeof x === "string" ? x.slice(0, FIELD_CHARS) : null;
}

/**
 * Checks a parsed record: a plain object with a known `k` and string fields. Anything else
 * (other kinds, a field of another type, an object whose `toString` is not a function) is null:
 * it is ignored, never coerced. Never throws.
 */
export function parseObservedRecord(v: unknown): ObservedRecord | null {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const k = field(o, "k");
  switch (k) {
    case "warning": {
      const name = field(o, "name");
      const message = field(o, "message");
      return name !== null && message !== null ? { k, name, message } : null;
    }
    case "unhandled-rejection":
    case "uncaught-exception": {
      const message = field(o, "message");
      return message !== null ? { k, message } : null;
    }
    case "network": {
      const target = field(o, "target");
      return target !== null ? { k, target } : null;
    }
    case "dns": {
      const host = field(o, "host");
      return host !== null ? { k, host } : null;
    }
    case "probe":
    case "test-read": {
      const p = field(o, "path");
      return p !== null ? { k, path: p } : null;
    }
    default:
      return null;
  }
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

/** What one record says, as one piece of evidence (or nothing). */
export type RecordEvidence =
  | { kind: "crash"; text: string }
  | { kind: "warning"; text: string }
  | { kind: "integrity"; observation: Observation<IntegrityTrigger> }
  | null;

const PYTHON_WARNINGS =
  /^(DeprecationWarning|PendingDeprecationWarning|FutureWarning|ResourceWarning|PytestUnhandled\w*|PytestUnraisable\w*)$/;
const NODE_WARNINGS = /^(DeprecationWarning|MaxListenersExceededWarning)$/;
const ESCAPE_PATH =
  /^\/proc\/1\/|^\/proc\/(self|\d+|thread-self)\/(mem|root)|^\/(root|home|var\/run|run|sys\/fs\/cgroup)(\/|$)|^\/etc\/shadow/;

const firstLine = (s: string): string => (s.split("\n")[0] ?? "").slice(0, 200);

/** The evidence one checked record carries; `label` prefixes stability lines. */
export function observeRecord(r: ObservedRecord, label: string, runtime: Runtime): RecordEvidence {
  switch (r.k) {
    case "warning": {
      const wanted = runtime === "node22" ? NODE_WARNINGS : PYTHON_WARNINGS;
      return wanted.test(r.name)
        ? { kind: "warning", text: `${label}: ${r.name}: ${r.message.slice(0, 200)}` }
        : null;
    }
    case "unhandled-rejection":
      return {
        kind: "warning",
        text: `${label}: unhandled promise rejection: ${firstLine(r.message)}`,
      };
    case "uncaught-exception":
      return { kind: "crash", text: `${label}: uncaught exception: ${firstLine(r.message)}` };
    case "network":
      return integrity("network-attempt", `blocked connection to ${r.target.slice(0, 200)}`);
    case "dns":
      return integrity("network-attempt", `blocked DNS lookup of ${r.host.slice(0, 200)}`);
    case "test-read":
      return integrity("hidden-test-access", `submission code read ${r.path.slice(0, 200)}`);
    case "probe": {
      const p = r.path.slice(0, 200);
      return /environ$/.test(p)
        ? integrity("environment-probing", `read ${p}`)
        : ESCAPE_PATH.test(p)
          ? integrity("sandbox-escape-attempt", `accessed ${p}`)
          : integrity("environment-probing", `accessed ${p}`);
    }
  }
}

function integrity(trigger: IntegrityTrigger, citation: string): RecordEvidence {
  return { kind: "integrity", observation: { trigger, citation } };
}
