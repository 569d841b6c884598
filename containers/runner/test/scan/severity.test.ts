/** The engineering spec's security score formula and the critical cap. */
import { describe, expect, it } from "vitest";
import { computeSecurityScore, resolveSeverity } from "../../src/scan/severity.ts";

const of = (...severities: ("critical" | "high" | "medium" | "low")[]) =>
  severities.map((severity) => ({ severity }));

describe("computeSecurityScore", () => {
  it("is 100 with no findings and no cap", () => {
    expect(computeSecurityScore([])).toEqual({
      score: 100,
      counts: { critical: 0, high: 0, medium: 0, low: 0 },
      finalScoreCap: null,
    });
  });
  it("deducts 25/15/5/1 per critical/high/medium/low", () => {
    expect(computeSecurityScore(of("high", "medium", "low", "low")).score).toBe(100 - 15 - 5 - 2);
    expect(computeSecurityScore(of("medium")).score).toBe(95);
  });
  it("caps the final score at 75 when any finding is critical", () => {
    expect(computeSecurityScore(of("critical", "low"))).toMatchObject({
      score: 74,
      finalScoreCap: 75,
    });
  });
  it("floors the score at 0", () => {
    expect(
      computeSecurityScore(of("critical", "critical", "critical", "critical", "high")).score,
    ).toBe(0);
  });
});

describe("resolveSeverity", () => {
  it("places the engineering spec's CWEs and docs/design.md's additions", () => {
    expect(resolveSeverity("CWE-89")).toBe("critical");
    expect(resolveSeverity("CWE-78")).toBe("critical");
    expect(resolveSeverity("CWE-916")).toBe("high");
    expect(resolveSeverity("CWE-352")).toBe("medium");
    expect(resolveSeverity("CWE-532")).toBe("low");
  });
  it("does not place unknown CWEs", () => {
    expect(resolveSeverity("CWE-1333")).toBeNull();
    expect(resolveSeverity(null)).toBeNull();
  });
});
