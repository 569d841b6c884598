/**
 * @module contracts/findings
 * Wire shape of a security finding, as produced by the runner's scanners and consumed by the
 * scoring engine. The severity buckets are the engine's own table (`@bouts/scoring`
 * SEVERITIES), never restated here. Pure: zod and the pure engine only.
 */
import { SEVERITIES } from "@bouts/scoring";
import { z } from "zod";

/** The engineering spec's four severity buckets, worst first (the engine's SEVERITIES). */
export const SeveritySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof SeveritySchema>;

/** One normalized finding: which tool and rule saw what, where, and how bad it is. */
export const FindingSchema = z.strictObject({
  tool: z.string().min(1).max(64).describe("scanner that reported it, e.g. semgrep, eslint, deps"),
  rule: z.string().min(1).max(200).describe("the scanner's rule id"),
  cwe: z
    .string()
    .regex(/^CWE-\d{1,5}$/)
    .nullable()
    .describe("CWE id such as CWE-89, or null for classes without one (security headers, logging)"),
  severity: SeveritySchema,
  file: z.string().max(1024).describe("path relative to the submission root"),
  line: z.int().min(0).describe("1-based line; 0 when the finding is about the whole file"),
  message: z.string().max(2000),
});
export type Finding = z.infer<typeof FindingSchema>;
