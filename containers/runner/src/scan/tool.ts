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

export interface ToolOutcome {
  run: ScanToolRun;
  findings: RawFinding[];
  skipped: { scratchPath: string; reason: string }[];
}

/** Extracts "CWE-n" from a rule's metadata value ("CWE-89", "CWE-89: …" or a list of them). */
export function parseCwe(value: unknown): string | null {
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof first !== "string") return null;
  const m = /\bCWE-(\d{1,5})\b/.exec(first);
  return m ? `CWE-${m[1]}` : null;
}
