/**
 * `npm run scan -- <dir> --json` (src/scan/cli.ts) on folders whose lockfile pins versions with
 * known advisories: every advisory is listed with its id and severity, offline, from the
 * snapshot shipped with the runner, and the report says which source and as of when. The
 * folders are only read (scanned), never run.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Finding, ScanReport } from "@bouts/contracts";
import { describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../../../..");
const FIXTURES = path.join(import.meta.dirname, "../fixtures/scan");

function scan(folder: string, runtime: "node" | "python"): ScanReport {
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "containers/runner/src/scan/cli.ts",
      path.join(FIXTURES, folder),
      "--json",
      "--runtime",
      runtime,
    ],
    // No advisory endpoint: the shipped snapshot is the source, with no network at all.
    { cwd: REPO, encoding: "utf8", env: { ...process.env, RUNNER_ADVISORY_ENDPOINT: "" } },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ScanReport;
}

const advisories = (findings: Finding[]) =>
  findings
    .filter((f) => f.tool === "deps")
    .map((f) => [f.rule, f.severity, f.message.split(":")[0]])
    .sort();

describe("npm run scan on a lockfile", () => {
  it("lists each advisory of a package-lock.json with its id and severity, from the snapshot", () => {
    const report = scan("vulnerable-npm", "node");
    expect(advisories(report.findings)).toEqual([
      ["NSWG-ECO-368", "low", "lodash@4.17.4"],
      ["NSWG-ECO-46", "medium", "ms@0.7.0"],
      ["NSWG-ECO-493", "high", "lodash@4.17.4"],
    ]);
    expect(report.advisories).toMatchObject({ source: "snapshot", packages: 2 });
    expect(report.advisories?.asOf).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(report.notMeasured).toEqual([]);
  }, 120_000);

  it("lists each advisory of a hashed requirements.txt, matched by PEP 440", () => {
    const report = scan("vulnerable-python", "python");
    const found = advisories(report.findings);
    expect(found.map(([, , pkg]) => pkg)).toEqual(
      expect.arrayContaining(["jinja2@2.10", "requests@2.19.0"]),
    );
    expect(found.map(([id]) => id)).toEqual(
      expect.arrayContaining(["PYSEC-2019-217", "PYSEC-2018-28"]),
    );
    for (const [, severity] of found)
      expect(["critical", "high", "medium", "low"]).toContain(severity);
    expect(report.advisories).toMatchObject({ source: "snapshot", packages: 2 });
  }, 120_000);

  it("measures a folder with no lockfile as having no vulnerable dependency", () => {
    const report = scan("clean-node", "node");
    expect(advisories(report.findings)).toEqual([]);
    expect(report.advisories).toMatchObject({ packages: 0 });
  }, 120_000);
});
