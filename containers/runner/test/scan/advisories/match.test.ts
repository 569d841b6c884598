/** Matching resolved packages against the shipped snapshot's real records, and merging aliases. */
import { beforeAll, describe, expect, it } from "vitest";
import type {
  Advisory,
  AdvisoryPackage,
  AdvisorySnapshot,
} from "../../../src/scan/advisories/index.ts";
import { loadShippedSnapshot, matchAdvisories } from "../../../src/scan/advisories/index.ts";

let snapshot: AdvisorySnapshot;
beforeAll(async () => {
  const loaded = await loadShippedSnapshot();
  if (!loaded.ok) throw new Error(loaded.error.detail);
  snapshot = loaded.value;
});

const npm = (name: string, version: string): AdvisoryPackage => ({
  ecosystem: "npm",
  name,
  version,
});
const pypi = (name: string, version: string): AdvisoryPackage => ({
  ecosystem: "PyPI",
  name,
  version,
});
const ids = (packages: AdvisoryPackage[]) =>
  matchAdvisories(packages, snapshot).map((m) => m.advisory.id);

describe("matchAdvisories on the shipped snapshot", () => {
  it("finds lodash's prototype pollution below 4.17.5 and not at it", () => {
    expect(ids([npm("lodash", "4.17.4")])).toEqual(["NSWG-ECO-368", "NSWG-ECO-493"]);
    expect(ids([npm("lodash", "4.17.5")])).toEqual(["NSWG-ECO-493"]);
    expect(ids([npm("lodash", "4.17.11")])).toEqual([]);
    const [m] = matchAdvisories([npm("lodash", "4.17.4")], snapshot);
    expect(m).toMatchObject({
      fixed: ">=4.17.5",
      advisory: { aliases: ["CVE-2018-3721"], summary: "lodash prototype pollution" },
    });
  });

  it("reads a bounded npm range: lodash >=4.17.15 <4.17.19", () => {
    expect(ids([npm("lodash", "4.17.14")])).toEqual([]);
    expect(ids([npm("lodash", "4.17.15")])).toEqual(["NSWG-ECO-516"]);
    expect(ids([npm("lodash", "4.17.18")])).toEqual(["NSWG-ECO-516"]);
    expect(ids([npm("lodash", "4.17.19")])).toEqual([]);
  });

  it("compares npm names exactly", () => {
    expect(ids([npm("Lodash", "4.17.4")])).toEqual([]);
  });

  it("finds jinja2's ReDoS (PYSEC-2021-66) below 2.11.3 and not at it", () => {
    expect(ids([pypi("jinja2", "2.11.2")])).toContain("PYSEC-2021-66");
    expect(ids([pypi("jinja2", "2.11.3")])).not.toContain("PYSEC-2021-66");
    const m = matchAdvisories([pypi("Jinja2", "2.11.2")], snapshot).find(
      (x) => x.advisory.id === "PYSEC-2021-66",
    );
    expect(m?.fixed).toBe("2.11.3");
    expect(m?.advisory.aliases).toContain("CVE-2020-28493");
  });

  it("finds requests' Proxy-Authorization leak (PYSEC-2023-74) from 2.3.0 up to 2.31.0", () => {
    expect(ids([pypi("requests", "2.30.0")])).toContain("PYSEC-2023-74");
    expect(ids([pypi("requests", "2.31.0")])).not.toContain("PYSEC-2023-74");
    expect(ids([pypi("requests", "2.2.1")])).not.toContain("PYSEC-2023-74");
  });

  it("matches PyYAML under any PEP 503 spelling and PEP 440 form", () => {
    // PYSEC-2020-176: introduced 5.1, fixed 5.2b1.
    for (const name of ["PyYAML", "pyyaml", "PYYAML"])
      expect(ids([pypi(name, "5.1.0")])).toContain("PYSEC-2020-176");
    expect(ids([pypi("pyyaml", "5.1.2.post1")])).toContain("PYSEC-2020-176");
    expect(ids([pypi("pyyaml", "5.2b1")])).not.toContain("PYSEC-2020-176");
    // PYSEC-2021-142: introduced 0, fixed 5.4; its release candidate is still affected.
    expect(ids([pypi("pyyaml", "5.4rc1")])).toContain("PYSEC-2021-142");
    expect(ids([pypi("pyyaml", "5.4")])).not.toContain("PYSEC-2021-142");
    expect(ids([pypi("pyyaml", "1!5.1")])).toEqual([]);
  });

  it("reads django's several release lines (PYSEC-2021-98: <2.2.24, 3.0–3.1.12, 3.2–3.2.4)", () => {
    for (const v of ["2.2.23", "3.1.11", "3.2.3", "3.2"])
      expect(ids([pypi("Django", v)]), v).toContain("PYSEC-2021-98");
    for (const v of ["2.2.24", "3.1.12", "3.2.4", "2.2.99"])
      expect(ids([pypi("django", v)]), v).not.toContain("PYSEC-2021-98");
    const m = matchAdvisories([pypi("django", "3.1.0")], snapshot).find(
      (x) => x.advisory.id === "PYSEC-2021-98",
    );
    expect(m?.fixed).toBe("3.1.12");
  });

  it("checks a package listed twice once, in a fixed order whatever the input order", () => {
    const a = [npm("lodash", "4.17.4"), pypi("jinja2", "2.11.2"), npm("lodash", "4.17.4")];
    const b = [pypi("Jinja2", "2.11.2"), npm("lodash", "4.17.4")];
    expect(ids(a)).toEqual(ids(b));
    expect(ids(a).filter((id) => id === "NSWG-ECO-368")).toHaveLength(1);
  });
});

describe("aliases", () => {
  const record = (id: string, aliases: string[], fixed: string): Advisory => ({
    id,
    aliases,
    summary: id,
    source: "test",
    affected: [
      {
        ecosystem: "PyPI",
        package: "demo",
        ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed }] }],
      },
    ],
  });

  it("merges advisories that name each other into one match under the lowest id", () => {
    const advisories = [
      record("PYSEC-2021-1", ["CVE-2021-1", "GHSA-aaaa-bbbb-cccc"], "2.0"),
      record("GHSA-aaaa-bbbb-cccc", ["CVE-2021-1"], "2.0"),
      record("PYSEC-2021-2", ["CVE-2021-2"], "3.0"),
    ];
    const matches = matchAdvisories([pypi("demo", "1.0")], { advisories });
    expect(matches.map((m) => m.advisory.id)).toEqual(["GHSA-aaaa-bbbb-cccc", "PYSEC-2021-2"]);
    expect(matches[0]!.duplicates.map((d) => d.id)).toEqual(["PYSEC-2021-1"]);
  });

  it("merges through a shared alias alone, transitively", () => {
    const advisories = [
      record("A-1", ["CVE-1"], "2.0"),
      record("B-1", ["CVE-1", "CVE-2"], "2.0"),
      record("C-1", ["CVE-2"], "2.0"),
    ];
    const matches = matchAdvisories([pypi("demo", "1.0")], { advisories });
    expect(matches).toHaveLength(1);
    expect(matches[0]!.duplicates.map((d) => d.id)).toEqual(["B-1", "C-1"]);
  });
});
