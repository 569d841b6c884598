/** The dependency check: findings and provenance from the snapshot or live OSV, and when it is not measured. */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { FindingSchema, ScanReportSchema } from "@bouts/contracts";
import type { ScanReport } from "@bouts/contracts";
import type { AdvisoryPackage, AdvisorySnapshot } from "../../src/scan/advisories/index.ts";
import { loadShippedSnapshot } from "../../src/scan/advisories/index.ts";
import {
  checkDependencies,
  resolveAdvisorySource,
  toScanAdvisories,
} from "../../src/scan/dependencies.ts";
import { JINJA2_GHSA, JINJA2_PYSEC, LODASH_GHSA, startFakeOsv } from "./advisories/fake-osv.ts";
import type { FakeOsv } from "./advisories/fake-osv.ts";

let snapshot: AdvisorySnapshot;
beforeAll(async () => {
  const loaded = await loadShippedSnapshot();
  if (!loaded.ok) throw new Error(loaded.error.detail);
  snapshot = loaded.value;
});

let fake: FakeOsv | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const LOCKFILE = "package-lock.json";
const LODASH_OLD: AdvisoryPackage = { ecosystem: "npm", name: "lodash", version: "4.17.4" };
const JINJA2_OLD: AdvisoryPackage = { ecosystem: "PyPI", name: "Jinja2", version: "2.11.2" };
const NOW = () => new Date("2026-05-01T12:00:00.000Z");

describe("checkDependencies from the snapshot", () => {
  it("reports each vulnerable package version as a deps finding on the lockfile", async () => {
    const r = await checkDependencies({
      packages: [LODASH_OLD, { ecosystem: "npm", name: "left-pad", version: "1.3.0" }],
      lockfile: LOCKFILE,
      source: { kind: "snapshot", snapshot },
    });
    expect(r.measured).toBe(true);
    if (!r.measured) return;
    expect(r.findings.map((f) => [f.rule, f.severity])).toEqual([
      ["NSWG-ECO-493", "high"], // CVSS 7.0
      ["NSWG-ECO-368", "low"], // CVSS 2.5
    ]);
    const [high, low] = r.findings;
    expect(low).toEqual({
      tool: "deps",
      rule: "NSWG-ECO-368",
      cwe: null,
      severity: "low",
      file: LOCKFILE,
      line: 0,
      message:
        "lodash@4.17.4: known vulnerability NSWG-ECO-368 (CVE-2018-3721); lodash prototype pollution; fixed in versions >=4.17.5; severity from its CVSS v3 base score 2.5",
    });
    for (const f of r.findings) expect(FindingSchema.parse(f)).toEqual(f);
    expect(high!.message).toContain("lodash@4.17.4");
    expect(r.provenance).toEqual({
      source: "snapshot",
      asOf: snapshot.asOf,
      snapshotSources: ["pypa@3ccb612573e2", "nodejs-security-wg@f1288d0d6723"],
      checkedPackages: 2,
    });
    expect(r.unchecked).toEqual([]);
  });

  it("reports a clean lockfile as measured with no findings", async () => {
    const r = await checkDependencies({
      packages: [{ ecosystem: "npm", name: "lodash", version: "4.17.21" }],
      lockfile: LOCKFILE,
      source: { kind: "snapshot", snapshot },
    });
    expect(r).toMatchObject({ measured: true, findings: [], provenance: { checkedPackages: 1 } });
  });

  it("counts a package version listed twice once", async () => {
    const r = await checkDependencies({
      packages: [LODASH_OLD, LODASH_OLD, { ...JINJA2_OLD, name: "jinja2" }, JINJA2_OLD],
      lockfile: LOCKFILE,
      source: { kind: "snapshot", snapshot },
    });
    expect(r.measured && r.provenance.checkedPackages).toBe(2);
    expect(r.measured && r.findings.filter((f) => f.rule === "NSWG-ECO-368")).toHaveLength(1);
  });

  it("lists a version its ecosystem cannot read as unchecked, not as clean", async () => {
    const r = await checkDependencies({
      packages: [{ ecosystem: "PyPI", name: "requests", version: "main" }, JINJA2_OLD],
      lockfile: "poetry.lock",
      source: { kind: "snapshot", snapshot },
    });
    expect(r.measured && r.unchecked).toEqual([
      {
        name: "requests",
        version: "main",
        reason: "not a version PEP 440 can order: only advisories listing it exactly were checked",
      },
    ]);
    expect(r.measured && r.provenance.checkedPackages).toBe(1);
    expect(r.measured && r.findings.map((f) => f.rule)).toContain("PYSEC-2021-66");
  });
});

describe("checkDependencies, not measured", () => {
  it("is not measured without an advisory source", async () => {
    const r = await checkDependencies({ packages: [LODASH_OLD], lockfile: LOCKFILE, source: null });
    expect(r).toEqual({
      measured: false,
      notMeasured: {
        check: "dependencies",
        reason: "no advisory source is available: package-lock.json not checked",
      },
    });
  });

  it("is not measured without packages", async () => {
    const source = { kind: "snapshot" as const, snapshot };
    const none = await checkDependencies({ packages: undefined, lockfile: LOCKFILE, source });
    expect(none.measured).toBe(false);
    const empty = await checkDependencies({ packages: [], lockfile: LOCKFILE, source });
    expect(!empty.measured && empty.notMeasured.reason).toBe(
      "package-lock.json resolves no packages to check",
    );
  });
});

describe("checkDependencies live", () => {
  // A source that answers gets a deadline no loaded machine reaches (a 300 ms one failed the
  // first test under the whole suite's load); only the timeout test sets a short one.
  const live = (endpoint: string, withSnapshot = true, timeoutMs = 10_000) => ({
    kind: "live" as const,
    fetch,
    endpoint,
    timeoutMs,
    snapshot: withSnapshot ? snapshot : null,
  });

  it("asks OSV and records that it did", async () => {
    fake = await startFakeOsv({
      hits: { "PyPI:jinja2@2.11.2": [JINJA2_GHSA.id, JINJA2_PYSEC.id] },
      records: { [JINJA2_GHSA.id]: JINJA2_GHSA, [JINJA2_PYSEC.id]: JINJA2_PYSEC },
    });
    const r = await checkDependencies({
      packages: [JINJA2_OLD],
      lockfile: "poetry.lock",
      source: live(fake.endpoint),
      now: NOW,
    });
    expect(r.measured).toBe(true);
    if (!r.measured) return;
    expect(r.provenance).toEqual({
      source: "osv-api",
      asOf: "2026-05-01T12:00:00.000Z",
      checkedPackages: 1,
    });
    expect(r.findings).toEqual([
      {
        tool: "deps",
        rule: "GHSA-g3rq-g295-4j3m",
        cwe: "CWE-400",
        severity: "medium",
        file: "poetry.lock",
        line: 0,
        message:
          "Jinja2@2.11.2: known vulnerability GHSA-g3rq-g295-4j3m (CVE-2020-28493, PYSEC-2021-66); Regular Expression Denial of Service (ReDoS) in Jinja2; fixed in 2.11.3; severity from its CVSS v3 base score 5.3",
      },
    ]);
  });

  it("places a live advisory by a CWE the table knows", async () => {
    fake = await startFakeOsv({
      hits: { "npm:lodash@4.17.4": [LODASH_GHSA.id] },
      records: { [LODASH_GHSA.id]: LODASH_GHSA },
    });
    const r = await checkDependencies({
      packages: [LODASH_OLD],
      lockfile: LOCKFILE,
      source: live(fake.endpoint),
    });
    expect(r.measured && r.findings.map((f) => [f.rule, f.severity, f.cwe])).toEqual([
      ["GHSA-p6mc-m468-83gw", "critical", "CWE-1321"],
    ]);
  });

  it("falls back to the snapshot when the live source times out, and says so", async () => {
    fake = await startFakeOsv({
      hits: {},
      records: {},
      batch: () => ({ body: { results: [] }, delayMs: 5000 }),
    });
    const r = await checkDependencies({
      packages: [LODASH_OLD],
      lockfile: LOCKFILE,
      source: live(fake.endpoint, true, 300),
    });
    expect(r.measured).toBe(true);
    if (!r.measured) return;
    expect(r.provenance).toMatchObject({
      source: "snapshot",
      asOf: snapshot.asOf,
      fallback:
        "the live source failed (timeout: the live query's deadline passed); the shipped snapshot was used",
    });
    expect(r.findings.map((f) => f.rule)).toEqual(["NSWG-ECO-493", "NSWG-ECO-368"]);
  });

  it("falls back when the live source fails", async () => {
    fake = await startFakeOsv({ hits: {}, records: {}, batch: () => ({ status: 503, body: "" }) });
    const r = await checkDependencies({
      packages: [LODASH_OLD],
      lockfile: LOCKFILE,
      source: live(fake.endpoint),
    });
    expect(r.measured && r.provenance.fallback).toMatch(/^the live source failed \(http-status:/);
  });

  it("is not measured when the live source fails and no snapshot loaded", async () => {
    fake = await startFakeOsv({ hits: {}, records: {}, batch: () => ({ status: 503, body: "" }) });
    const r = await checkDependencies({
      packages: [LODASH_OLD],
      lockfile: LOCKFILE,
      source: live(fake.endpoint, false),
    });
    expect(r.measured).toBe(false);
    expect(!r.measured && r.notMeasured.reason).toMatch(/no snapshot is available/);
  });
});

describe("the scan report's advisories field", () => {
  const report: ScanReport = {
    status: "complete",
    findings: [],
    tools: [],
    skipped: [],
    notMeasured: [],
    durationMs: 1,
  };

  it("carries the provenance of a measured check", async () => {
    const r = await checkDependencies({
      packages: [LODASH_OLD],
      lockfile: LOCKFILE,
      source: { kind: "snapshot", snapshot },
    });
    if (!r.measured) throw new Error("not measured");
    const advisories = toScanAdvisories(r.provenance);
    expect(advisories).toEqual({
      source: "snapshot",
      asOf: snapshot.asOf,
      packages: 1,
      sources: ["pypa@3ccb612573e2", "nodejs-security-wg@f1288d0d6723"],
    });
    const full = { ...report, findings: r.findings, advisories };
    expect(ScanReportSchema.parse(full)).toEqual(full);
  });

  it("stays optional, so stored reports stay valid", () => {
    expect(ScanReportSchema.parse(report)).toEqual(report);
    expect(ScanReportSchema.safeParse({ ...report, advisories: { source: "x" } }).success).toBe(
      false,
    );
  });
});

describe("resolveAdvisorySource", () => {
  it("uses the shipped snapshot unless a live endpoint is configured", async () => {
    const off = await resolveAdvisorySource({ ADVISORY_TIMEOUT_MS: 10_000 });
    expect(off?.kind).toBe("snapshot");
    const on = await resolveAdvisorySource({
      ADVISORY_ENDPOINT: "https://osv.example/v1/querybatch",
      ADVISORY_TIMEOUT_MS: 2000,
    });
    expect(on).toMatchObject({
      kind: "live",
      endpoint: "https://osv.example/v1/querybatch",
      timeoutMs: 2000,
    });
    expect(on?.snapshot?.asOf).toBe(snapshot.asOf);
  });
});
