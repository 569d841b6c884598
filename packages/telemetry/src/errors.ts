/**
 * @module telemetry/errors
 * Why a trace was refused. Every variant names where (JSONL line, 1-based; or OTel span
 * index, 0-based in export order) and what is wrong, so an adapter can answer a 4xx that
 * points at the problem. Pure.
 */
import type { z } from "zod";

/** Which size limit a trace broke. */
export type TraceLimitName = "maxBytes" | "maxEvents" | "maxLineLength";

/** A refused trace, tagged by `reason`. */
export type TraceError =
  | { reason: "empty"; detail: string }
  | { reason: "unknown-format"; detail: string }
  | { reason: "too-large"; limit: "maxBytes"; max: number; actual: number; detail: string }
  | { reason: "too-many-events"; limit: "maxEvents"; max: number; detail: string }
  | {
      reason: "line-too-long";
      limit: "maxLineLength";
      line: number;
      max: number;
      actual: number;
      detail: string;
    }
  | { reason: "bad-header"; line: 1; detail: string }
  | { reason: "bad-json"; line: number; detail: string }
  | { reason: "bad-event"; line: number; field: string; detail: string }
  | { reason: "bad-sequence"; line: number; detail: string }
  | { reason: "bad-otel"; field: string; detail: string }
  | { reason: "bad-span"; span: number; field: string; detail: string };

/** One-line human description of a trace error, e.g. for a problem+json `detail`. */
export function formatTraceError(e: TraceError): string {
  switch (e.reason) {
    case "empty":
    case "unknown-format":
    case "too-large":
    case "too-many-events":
      return e.detail;
    case "line-too-long":
    case "bad-header":
    case "bad-json":
    case "bad-sequence":
      return `line ${e.line}: ${e.detail}`;
    case "bad-event":
      return `line ${e.line}: ${e.field}: ${e.detail}`;
    case "bad-otel":
      return `${e.field}: ${e.detail}`;
    case "bad-span":
      return `span ${e.span}: ${e.field}: ${e.detail}`;
  }
}

/** The first zod issue as `{ field, detail }`, the field dotted (`paths.3`), or "(root)". */
export function describeIssue(error: z.ZodError): { field: string; detail: string } {
  const issue = error.issues[0];
  if (!issue) return { field: "(root)", detail: "invalid" };
  const field = issue.path.length === 0 ? "(root)" : issue.path.map(String).join(".");
  return { field, detail: issue.message };
}
