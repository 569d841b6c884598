/**
 * @module runner/scan/tool
 * What one scanner hands back before normalization: findings and skips keyed by the scratch
 * copy's path, plus the tool's run record. Types only.
 */
import type { ScanToolRun } from "@bouts/contracts";

export interface RawFinding {
  tool: string;
  rule: string;
  /** "CWE-n" as the rule declares it, or null. */
  cwe: string | null;
  scratchPath: string;
  line: number;
  message: string;
}

/** Code run from a source no scanner reads (eval of a string, a module named at run time, …). */
export interface UnscannedCode {
  scratchPath: string;
  line: number;
  /** What the code is run from, as the rule describes it: "eval(readFileSync(…))". */
  source: string;
}

/** A module loaded by a literal relative or absolute specifier; resolved against the files. */
export interface LoadedModule {
  scratchPath: string;
  line: number;
  specifier: string;
  /** "require": CommonJS-style loading, which runs a file of any extension as JavaScript. */
  kind: "require" | "import";
}

export interface ToolOutcome {
  run: ScanToolRun;
  findings: RawFinding[];
  skipped: { scratchPath: string; reason: string }[];
  /** Dynamic code loading the tool saw (not findings: they make the scan partial). */
  unscanned?: UnscannedCode[];
  /** Literal module specifiers to check against the submission's files. */
  loads?: LoadedModule[];
  /** The scan's abort signal stopped the tool before it finished. */
  stopped?: boolean;
}

/** Extracts "CWE-n" from a rule's metadata value ("CWE-89", "CWE-89: …" or a list of them). */
export function parseCwe(value: unknown): string | null {
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof first !== "string") return null;
  const m = /\bCWE-(\d{1,5})\b/.exec(first);
  return m ? `CWE-${m[1]}` : null;
}
