/** An advisory's severity: its CWE through the engine's table, else its CVSS v3 score, else medium. */
import { describe, expect, it } from "vitest";
import {
  computeCvss3BaseScore,
  resolveAdvisorySeverity,
  UNSCORED_ADVISORY_SEVERITY,
} from "../../../src/scan/advisories/index.ts";
import { CWE_SEVERITY } from "../../../src/scan/severity.ts";

const CRITICAL_VECTOR = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"; // 9.8
const MEDIUM_VECTOR = "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N"; // 6.5
const LOW_VECTOR = "CVSS:3.0/AV:L/AC:H/PR:H/UI:R/S:U/C:N/I:N/A:L"; // 1.8

describe("resolveAdvisorySeverity", () => {
  const table: [string, Parameters<typeof resolveAdvisorySeverity>[0], object][] = [
    // A CWE the table places decides, whatever the score.
    [
      "sql injection by its CWE",
      { cwes: ["CWE-89"], cvss: { score: 3.1 } },
      { severity: "critical", cwe: "CWE-89", basis: "cwe" },
    ],
    [
      "prototype pollution by its CWE",
      { cwes: ["CWE-1321"], cvss: { score: 5.6 } },
      { severity: "critical", cwe: "CWE-1321", basis: "cwe" },
    ],
    ["xss by its CWE", { cwes: ["CWE-79"] }, { severity: "high", cwe: "CWE-79", basis: "cwe" }],
    [
      "csrf by its CWE",
      { cwes: ["CWE-352"], cvss: { score: 9.9 } },
      { severity: "medium", cwe: "CWE-352", basis: "cwe" },
    ],
    [
      "logging by its CWE",
      { cwes: ["CWE-532"] },
      { severity: "low", cwe: "CWE-532", basis: "cwe" },
    ],
    [
      "the worst of several placed CWEs",
      { cwes: ["CWE-79", "CWE-1333", "CWE-78"] },
      { severity: "critical", cwe: "CWE-78", basis: "cwe" },
    ],
    // Else the CVSS v3 base score by the usual bands.
    [
      "9.0 critical",
      { cwes: ["CWE-1333"], cvss: { score: 9.0 } },
      { severity: "critical", cwe: "CWE-1333", basis: "cvss", score: 9 },
    ],
    ["8.9 high", { cvss: { score: 8.9 } }, { severity: "high", cwe: null, basis: "cvss" }],
    ["7.0 high", { cvss: { score: 7.0 } }, { severity: "high", basis: "cvss" }],
    ["6.9 medium", { cvss: { score: 6.9 } }, { severity: "medium", basis: "cvss" }],
    ["4.0 medium", { cvss: { score: 4.0 } }, { severity: "medium", basis: "cvss" }],
    ["3.9 low", { cvss: { score: 3.9 } }, { severity: "low", basis: "cvss" }],
    ["0.1 low", { cvss: { score: 0.1 } }, { severity: "low", basis: "cvss" }],
    [
      "a given score over its vector",
      { cvss: { score: 2.5, vector: CRITICAL_VECTOR } },
      { severity: "low", basis: "cvss", score: 2.5 },
    ],
    [
      "a v3.1 vector alone, computed",
      { cvss: { vector: CRITICAL_VECTOR } },
      { severity: "critical", basis: "cvss", score: 9.8 },
    ],
    [
      "a v3.0 vector alone, computed",
      { cvss: { vector: MEDIUM_VECTOR } },
      { severity: "medium", basis: "cvss", score: 6.5 },
    ],
    [
      "a low vector alone, computed",
      { cvss: { vector: LOW_VECTOR } },
      { severity: "low", basis: "cvss", score: 1.8 },
    ],
    // Else medium: the default of an unscored advisory.
    ["nothing at all", {}, { severity: "medium", cwe: null, basis: "default", score: null }],
    [
      "an unplaced CWE and no score",
      { cwes: ["CWE-400"] },
      { severity: "medium", cwe: "CWE-400", basis: "default" },
    ],
    ["a score of 0.0 (none)", { cvss: { score: 0 } }, { severity: "medium", basis: "default" }],
    [
      "a partial vector",
      { cvss: { vector: "CVSS:3.1/AV:N/AC:L" } },
      { severity: "medium", basis: "default", score: null },
    ],
  ];
  it.each(table)("places %s", (_, advisory, expected) => {
    expect(resolveAdvisorySeverity(advisory)).toMatchObject(expected);
  });

  it("defaults to medium", () => {
    expect(UNSCORED_ADVISORY_SEVERITY).toBe("medium");
  });

  it("uses the engine's own CWE table", () => {
    for (const [cwe, severity] of Object.entries(CWE_SEVERITY))
      expect(resolveAdvisorySeverity({ cwes: [cwe] })).toMatchObject({ severity, basis: "cwe" });
  });

  it("never reads an inherited key as a CWE", () => {
    expect(resolveAdvisorySeverity({ cwes: ["constructor", "__proto__"] })).toMatchObject({
      severity: "medium",
      basis: "default",
    });
  });
});

describe("computeCvss3BaseScore", () => {
  it("computes v3.0 and v3.1 base scores", () => {
    expect(computeCvss3BaseScore(CRITICAL_VECTOR)).toBe(9.8);
    expect(computeCvss3BaseScore("CVSS:3.0/AV:L/AC:L/PR:N/UI:N/S:C/C:L/I:L/A:N")).toBe(5.7);
    expect(computeCvss3BaseScore(`${CRITICAL_VECTOR}/E:U/RL:O`)).toBe(9.8);
  });

  it("refuses what is not one full base vector", () => {
    expect(computeCvss3BaseScore("CVSS:3.1/AV:N/AC:L")).toBeNull();
    expect(computeCvss3BaseScore("CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H")).toBeNull();
    expect(computeCvss3BaseScore("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/AV:L")).toBeNull();
    expect(computeCvss3BaseScore("AV:N/AC:L/Au:N/C:P/I:P/A:P")).toBeNull(); // CVSS v2
    expect(
      computeCvss3BaseScore("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"),
    ).toBeNull();
  });
});
