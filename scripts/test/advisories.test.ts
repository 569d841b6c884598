/** `npm run advisories:refresh`: the snapshot builder over small copies of both sources. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAdvisorySnapshot } from "../../containers/runner/src/scan/advisories/load.ts";
import {
  buildSnapshot,
  packSnapshot,
  readNodeSecurityWg,
  readPypa,
  renderNotice,
  serializeSnapshot,
  SNAPSHOT_FILE,
} from "../advisories.ts";

let root: string;
let pypa: string;
let npm: string;

const PYSEC_YAML = `id: PYSEC-2099-2
details: "A  long\\n  description of the flaw."
affected:
- package:
    name: Py_YAML
    ecosystem: PyPI
  ranges:
  - type: GIT
    repo: https://example.org/repo
    events:
    - introduced: "0"
  - type: ECOSYSTEM
    events:
    - introduced: "0"
    - fixed: 1.10
  versions:
  - 1.1
  - "1.9"
aliases:
- CVE-2099-2
- GHSA-aaaa-bbbb-cccc
severity:
- type: CVSS_V3
  score: CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H
modified: "2024-05-01T10:00:00.123456Z"
`;

const WITHDRAWN_YAML = `id: PYSEC-2099-1
details: withdrawn
withdrawn: "2024-01-01T00:00:00Z"
affected:
- package:
    name: demo
    ecosystem: PyPI
  versions:
  - "1.0"
modified: "2024-06-01T00:00:00Z"
`;

const npmRecord = (id: number, extra: object) => ({
  id,
  created_at: "2016-01-01",
  updated_at: "2019-02-03",
  title: `Flaw ${id}`,
  author: { name: "someone" },
  module_name: "left-pad",
  publish_date: "2016-01-01",
  cves: ["CVE-2016-0001", "not-a-cve"],
  vulnerable_versions: "<1.0.1 || >=2.0.0 <2.0.3",
  patched_versions: ">=1.0.1 <2.0.0 || >=2.0.3",
  overview: "overview",
  recommendation: null,
  references: null,
  cvss_vector: "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N",
  cvss_score: 6.5,
  coordinating_vendor: null,
  ...extra,
});

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "bouts-advisories-"));
  pypa = path.join(root, "pypa");
  npm = path.join(root, "security-wg");
  mkdirSync(path.join(pypa, "vulns/py-yaml"), { recursive: true });
  mkdirSync(path.join(pypa, "vulns/demo"), { recursive: true });
  writeFileSync(path.join(pypa, "vulns/.id-allocator"), "x");
  writeFileSync(path.join(pypa, "vulns/py-yaml/PYSEC-2099-2.yaml"), PYSEC_YAML);
  writeFileSync(path.join(pypa, "vulns/demo/PYSEC-2099-1.yaml"), WITHDRAWN_YAML);
  mkdirSync(path.join(npm, "vuln/npm"), { recursive: true });
  writeFileSync(path.join(npm, "vuln/npm/7.json"), JSON.stringify(npmRecord(7, {})));
  writeFileSync(
    path.join(npm, "vuln/npm/12.json"),
    JSON.stringify(npmRecord(12, { cvss_score: -1, cvss_vector: null, patched_versions: null })),
  );
  writeFileSync(path.join(npm, "vuln/npm/index.json"), "{}");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("readPypa", () => {
  it("keeps the OSV subset, normalizes names and keeps versions as written", () => {
    const r = readPypa(pypa, "abc1234");
    expect(r.skipped).toBe(1); // the withdrawn record
    expect(r.source).toMatchObject({
      id: "pypa",
      licence: "CC-BY-4.0",
      commit: "abc1234",
      records: 2,
      newest: "2024-06-01T00:00:00.000Z",
    });
    expect(r.advisories).toEqual([
      {
        id: "PYSEC-2099-2",
        aliases: ["CVE-2099-2", "GHSA-aaaa-bbbb-cccc"],
        summary: "A long description of the flaw.",
        source: "pypa",
        affected: [
          {
            ecosystem: "PyPI",
            package: "py-yaml",
            // 1.10 stays 1.10: YAML's failsafe schema reads no numbers.
            ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "1.10" }] }],
            versions: ["1.1", "1.9"],
          },
        ],
        cvss: { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
      },
    ]);
  });

  it("stops on a record of the wrong shape, naming it", () => {
    const bad = path.join(root, "bad");
    mkdirSync(path.join(bad, "vulns/x"), { recursive: true });
    writeFileSync(path.join(bad, "vulns/x/PYSEC-1.yaml"), "id: PYSEC-1\naffected: nope\n");
    expect(() => readPypa(bad, undefined)).toThrow(/vulns\/x\/PYSEC-1\.yaml: not an OSV record/);
  });
});

describe("readNodeSecurityWg", () => {
  it("keeps the semver range string, the CVEs and the CVSS given", () => {
    const r = readNodeSecurityWg(npm, undefined);
    expect(r.source).toMatchObject({ id: "nodejs-security-wg", licence: "MIT", records: 2 });
    expect(r.source.attribution).toContain("newest record was updated on 2019-02-03");
    expect(r.source.notice).toContain("Permission is hereby granted");
    expect(r.advisories.map((a) => a.id)).toEqual(["NSWG-ECO-12", "NSWG-ECO-7"]);
    expect(r.advisories[1]).toEqual({
      id: "NSWG-ECO-7",
      aliases: ["CVE-2016-0001"],
      summary: "Flaw 7",
      source: "nodejs-security-wg",
      affected: [
        {
          ecosystem: "npm",
          package: "left-pad",
          semverRange: "<1.0.1 || >=2.0.0 <2.0.3",
          patchedRange: ">=1.0.1 <2.0.0 || >=2.0.3",
        },
      ],
      cvss: { score: 6.5, vector: "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N" },
    });
    // A score of -1 means none; no vector, no patched range.
    expect(r.advisories[0]).not.toHaveProperty("cvss");
    expect(r.advisories[0]!.affected[0]).not.toHaveProperty("patchedRange");
  });
});

describe("buildSnapshot", () => {
  it("is deterministic, sorted, dated by its newest record and loadable by the runner", () => {
    const build = () =>
      serializeSnapshot(
        buildSnapshot([readPypa(pypa, "abc1234"), readNodeSecurityWg(npm, "def5678")]),
      );
    const text = build();
    expect(build()).toBe(text);
    expect(packSnapshot(text).equals(packSnapshot(build()))).toBe(true);
    const loaded = parseAdvisorySnapshot(packSnapshot(text));
    if (!loaded.ok) throw new Error(loaded.error.detail);
    expect(loaded.value.asOf).toBe("2024-06-01T00:00:00.000Z");
    expect(loaded.value.advisories.map((a) => a.id)).toEqual([
      "PYSEC-2099-2",
      "NSWG-ECO-12",
      "NSWG-ECO-7",
    ]);
    expect(text.split("\n")).toHaveLength(3 + 3); // head, one line each, closing line, ""
    const notice = renderNotice(loaded.value);
    expect(notice).toContain("- commit: abc1234");
    expect(notice).toContain("Copyright (c) Node.js Foundation");
  });

  it("refuses an advisory id twice", () => {
    const r = readPypa(pypa, undefined);
    expect(() => buildSnapshot([r, r])).toThrow("advisory PYSEC-2099-2 appears twice");
  });
});

describe("the shipped snapshot", () => {
  it("is in the builder's own form (a refresh from the same sources changes nothing)", () => {
    const text = gunzipSync(readFileSync(SNAPSHOT_FILE)).toString("utf8");
    const loaded = parseAdvisorySnapshot(new TextEncoder().encode(text));
    if (!loaded.ok) throw new Error(loaded.error.detail);
    expect(serializeSnapshot(loaded.value)).toBe(text);
    const notice = readFileSync(path.join(path.dirname(SNAPSHOT_FILE), "NOTICE.md"), "utf8");
    expect(notice).toBe(renderNotice(loaded.value));
  });
});
