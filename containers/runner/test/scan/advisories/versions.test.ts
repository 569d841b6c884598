/** Version matching by each ecosystem's rules: semver ranges for npm, PEP 440 and OSV ranges for PyPI. */
import { describe, expect, it } from "vitest";
import type { AffectedPackage } from "../../../src/scan/advisories/index.ts";
import {
  isValidVersion,
  normalizePypiName,
  resolveAffected,
} from "../../../src/scan/advisories/index.ts";

const pypi = (events: object[], versions?: string[]): AffectedPackage =>
  ({
    ecosystem: "PyPI",
    package: "demo",
    ranges: [{ type: "ECOSYSTEM", events }],
    ...(versions ? { versions } : {}),
  }) as AffectedPackage;

const affected = (entry: AffectedPackage, v: string) => resolveAffected(entry, v).affected;

describe("PEP 440 ranges", () => {
  const before211 = pypi([{ introduced: "0" }, { fixed: "2.11.3" }]);

  it("treats exactly the fixed version as clean and the one before as affected", () => {
    expect(affected(before211, "2.11.3")).toBe(false);
    expect(affected(before211, "2.11.2")).toBe(true);
    expect(resolveAffected(before211, "2.11.2").fixed).toBe("2.11.3");
  });

  it("reads introduced 0 as the start of time", () => {
    expect(affected(before211, "0.0.1")).toBe(true);
    expect(affected(before211, "0")).toBe(true);
  });

  it("compares 1.0 and 1.0.0 as the same version", () => {
    const entry = pypi([{ introduced: "1.0" }, { fixed: "1.1" }]);
    expect(affected(entry, "1.0.0")).toBe(true);
    expect(affected(entry, "1.1.0")).toBe(false);
    expect(affected(pypi([{ introduced: "0" }, { fixed: "1.0.0" }]), "1.0")).toBe(false);
  });

  it("orders release candidates before their release", () => {
    const entry = pypi([{ introduced: "0" }, { fixed: "2.0" }]);
    expect(affected(entry, "2.0rc1")).toBe(true);
    expect(affected(entry, "2.0.0rc1")).toBe(true);
    expect(affected(entry, "2.0")).toBe(false);
    expect(affected(pypi([{ introduced: "2.0" }, { fixed: "3.0" }]), "2.0rc1")).toBe(false);
  });

  it("orders post releases after their release and dev releases before", () => {
    const entry = pypi([{ introduced: "0" }, { fixed: "1.2.post1" }]);
    expect(affected(entry, "1.2")).toBe(true);
    expect(affected(entry, "1.2.post1")).toBe(false);
    expect(affected(entry, "1.2-1")).toBe(false); // another spelling of 1.2.post1
    expect(affected(pypi([{ introduced: "1.2" }, { fixed: "1.3" }]), "1.2.dev3")).toBe(false);
  });

  it("puts any epoch above every version without one", () => {
    const entry = pypi([{ introduced: "0" }, { fixed: "5.4" }]);
    expect(affected(entry, "1!1.0")).toBe(false);
    expect(affected(pypi([{ introduced: "1!0.1" }, { fixed: "1!2.0" }]), "1!1.0")).toBe(true);
    expect(affected(pypi([{ introduced: "1!0.1" }, { fixed: "1!2.0" }]), "3.0")).toBe(false);
  });

  it("includes last_affected itself and nothing above it", () => {
    const entry = pypi([{ introduced: "1.0" }, { last_affected: "1.4" }]);
    expect(affected(entry, "1.4")).toBe(true);
    expect(affected(entry, "1.4.0")).toBe(true);
    expect(affected(entry, "1.4.1")).toBe(false);
    expect(affected(entry, "0.9")).toBe(false);
  });

  it("evaluates several introduced/fixed pairs given in any order", () => {
    // As PYSEC-2018-44 lists them: the newest line first.
    const entry = pypi([
      { introduced: "2.7" },
      { fixed: "2.7.1" },
      { introduced: "2.6" },
      { fixed: "2.6.7" },
      { introduced: "0" },
      { fixed: "2.5.11" },
    ]);
    expect(affected(entry, "2.5.10")).toBe(true);
    expect(affected(entry, "2.5.11")).toBe(false);
    expect(affected(entry, "2.5.99")).toBe(false);
    expect(affected(entry, "2.6.6")).toBe(true);
    expect(affected(entry, "2.6.7")).toBe(false);
    expect(affected(entry, "2.7.0")).toBe(true);
    expect(affected(entry, "2.7.1")).toBe(false);
    expect(resolveAffected(entry, "2.6.0").fixed).toBe("2.6.7");
  });

  it("matches a listed version however it is spelled, and a range it cannot read never", () => {
    const entry = pypi([{ introduced: "0" }, { fixed: "2019-09-12" }], ["0.7.10p1", "1.0"]);
    expect(affected(entry, "0.7.10p1")).toBe(true); // not PEP 440: only an exact listing
    expect(affected(entry, "1.0.0")).toBe(true);
    expect(affected(entry, "0.5")).toBe(false); // the range's fixed event is no version
  });

  it("refuses versions PEP 440 cannot read", () => {
    expect(isValidVersion("PyPI", "1.0.0")).toBe(true);
    expect(isValidVersion("PyPI", "not a version")).toBe(false);
    expect(isValidVersion("PyPI", "1".repeat(300))).toBe(false);
    expect(affected(pypi([{ introduced: "0" }]), "latest")).toBe(false);
  });
});

describe("npm semver ranges", () => {
  const npm = (semverRange: string, patchedRange?: string): AffectedPackage => ({
    ecosystem: "npm",
    package: "demo",
    semverRange,
    ...(patchedRange ? { patchedRange } : {}),
  });

  it("treats the first patched version as clean and the one before as affected", () => {
    const entry = npm("<4.17.5", ">=4.17.5");
    expect(resolveAffected(entry, "4.17.4")).toEqual({ affected: true, fixed: ">=4.17.5" });
    expect(affected(entry, "4.17.5")).toBe(false);
  });

  it("counts a prerelease below the fixed release as affected, as semver orders it", () => {
    expect(affected(npm("<4.17.5"), "4.17.5-beta.1")).toBe(true);
    expect(affected(npm("<4.17.5"), "4.17.6-beta.1")).toBe(false);
    expect(affected(npm(">=3.0.0-beta.1 <3.0.0-beta.7"), "3.0.0-beta.6")).toBe(true);
    expect(affected(npm(">=3.0.0-beta.1 <3.0.0-beta.7"), "3.0.0-beta.7")).toBe(false);
  });

  it("reads || alternatives", () => {
    const entry = npm(">=1.3.0 <1.3.2 || >=1.4.0 <1.4.11");
    expect(affected(entry, "1.3.1")).toBe(true);
    expect(affected(entry, "1.3.5")).toBe(false);
    expect(affected(entry, "1.4.10")).toBe(true);
  });

  it("evaluates OSV SEMVER ranges from the live source", () => {
    const entry: AffectedPackage = {
      ecosystem: "npm",
      package: "demo",
      ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "1.2.6" }] }],
    };
    expect(resolveAffected(entry, "1.2.5")).toEqual({ affected: true, fixed: "1.2.6" });
    expect(affected(entry, "1.2.6")).toBe(false);
  });

  it("never matches a version semver cannot read, nor a range it cannot read", () => {
    expect(affected(npm("<2.0.0"), "1.x")).toBe(false);
    expect(affected(npm("not a range"), "1.0.0")).toBe(false);
  });
});

describe("normalizePypiName", () => {
  it("compares names as PEP 503 does", () => {
    expect(normalizePypiName("PyYAML")).toBe("pyyaml");
    expect(normalizePypiName("Jinja2")).toBe("jinja2");
    expect(normalizePypiName("zope.interface")).toBe("zope-interface");
    expect(normalizePypiName("My__Odd-._Name")).toBe("my-odd-name");
  });
});
