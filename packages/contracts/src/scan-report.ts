/**
 * @module contracts/scan-report
 * What a security scan of one submission produced. A scan that did not run is
 * "unavailable", never clean; a scan stopped by its deadline is "partial" with
 * `deadline.exhausted`, never complete or clean. Pure: zod only.
 */
import { z } from "zod";
import { FindingSchema } from "./findings.ts";

export const SCAN_STATUSES = ["complete", "partial", "unavailable"] as const;

export const ScanToolRunSchema = z.strictObject({
  tool: z.string().min(1).max(64),
  version: z.string().max(64).nullable(),
  status: z.enum(["ok", "failed", "not-run"]),
  detail: z.string().max(2000),
});
export type ScanToolRun = z.infer<typeof ScanToolRunSchema>;

/** Where the dependency check's advisories came from, when the check was measured. */
export const ScanAdvisoriesSchema = z.strictObject({
  source: z
    .enum(["osv-api", "snapshot"])
    .describe("osv-api: asked live; snapshot: the advisory snapshot shipped with the runner"),
  asOf: z.iso
    .datetime()
    .describe("snapshot: its newest record's modified time; osv-api: when it was asked"),
  packages: z.int().min(0).describe("resolved packages whose versions were checked"),
  sources: z
    .array(z.string().min(1).max(200))
    .max(16)
    .optional()
    .describe("the snapshot's sources, each as id@commit (snapshot only)"),
  fallback: z
    .string()
    .max(500)
    .optional()
    .describe("why the live source was configured but not used: its failure or timeout"),
});
export type ScanAdvisories = z.infer<typeof ScanAdvisoriesSchema>;

/** Result of scanning a submission: findings plus everything that was not looked at, and why. */
export const ScanReportSchema = z.strictObject({
  status: z.enum(SCAN_STATUSES),
  findings: z.array(FindingSchema),
  tools: z.array(ScanToolRunSchema),
  skipped: z.array(z.strictObject({ file: z.string().max(1024), reason: z.string().max(500) })),
  notMeasured: z.array(z.strictObject({ check: z.string().max(100), reason: z.string().max(500) })),
  durationMs: z.number().min(0),
  deadline: z
    .strictObject({ ms: z.int().min(1), exhausted: z.boolean() })
    .optional()
    .describe(
      "the scan's own deadline; exhausted: a tool was stopped by it (scan partial, files in skipped)",
    ),
  advisories: ScanAdvisoriesSchema.optional().describe(
    "where the dependency check's advisories came from; absent when it was not measured (then it is in notMeasured)",
  ),
});
export type ScanReport = z.infer<typeof ScanReportSchema>;
