import { describe, expect, expectTypeOf, it } from "vitest";
import { ScanReportSchema, type ScanAdvisories, type ScanReport } from "../src/scan-report.ts";

const report: ScanReport = {
  status: "complete",
  findings: [],
  tools: [],
  skipped: [],
  notMeasured: [],
  durationMs: 12,
};

describe("ScanReportSchema's advisories", () => {
  it("accepts a report without it, as stored reports are", () => {
    expect(ScanReportSchema.parse(report)).toEqual(report);
  });

  it("accepts the provenance of a snapshot and of a live check", () => {
    const snapshot = {
      source: "snapshot",
      asOf: "2024-10-10T17:22:00.587Z",
      packages: 42,
      sources: ["pypa@3ccb612573e2", "nodejs-security-wg@f1288d0d6723"],
      fallback: "the live source failed (timeout: …); the shipped snapshot was used",
    } as const;
    expect(ScanReportSchema.parse({ ...report, advisories: snapshot }).advisories).toEqual(
      snapshot,
    );
    const live = { source: "osv-api", asOf: "2026-05-01T12:00:00.000Z", packages: 3 } as const;
    expect(ScanReportSchema.parse({ ...report, advisories: live }).advisories).toEqual(live);
    expectTypeOf(live).toExtend<ScanAdvisories>();
  });

  it("refuses an unknown source, a date that is not ISO or an unknown key", () => {
    const ok = { source: "snapshot", asOf: "2024-10-10T17:22:00.587Z", packages: 1 };
    for (const advisories of [
      { ...ok, source: "npm-audit" },
      { ...ok, asOf: "last week" },
      { ...ok, packages: -1 },
      { ...ok, extra: true },
    ])
      expect(ScanReportSchema.safeParse({ ...report, advisories }).success).toBe(false);
  });
});
