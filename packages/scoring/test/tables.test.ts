import { describe, expect, it } from "vitest";
import {
  ADVERSARIAL_WEIGHT_HALVES,
  BANDS,
  CODE_QUALITY_RUBRIC,
  CWE_SEVERITY,
  DELIVERABLE_RUBRIC,
  ENGINEERING_WEIGHTS,
  FAMILY_WEIGHTS,
  SECURITY_DEDUCTIONS,
  STABILITY_SCORES,
  resolveBand,
} from "../src/index.ts";

describe("the specifications' tables", () => {
  it("weighs the engineering composite 35/15/20/15/10/5", () => {
    expect(ENGINEERING_WEIGHTS).toEqual({
      static: 35,
      adversarial: 15,
      codeQuality: 20,
      deliverables: 15,
      security: 10,
      stability: 5,
    });
    expect(Object.values(ENGINEERING_WEIGHTS).reduce((a: number, b: number) => a + b, 0)).toBe(100);
  });
  it("weighs adversarial severities 3, 2, 1 and 0.5", () => {
    expect(
      Object.fromEntries(Object.entries(ADVERSARIAL_WEIGHT_HALVES).map(([k, v]) => [k, v / 2])),
    ).toEqual({
      critical: 3,
      high: 2,
      medium: 1,
      low: 0.5,
    });
  });
  it("uses the rubrics' weights", () => {
    expect(CODE_QUALITY_RUBRIC).toEqual({
      readability: 25,
      architecture: 25,
      robustness: 25,
      idiomaticity: 25,
    });
    expect(DELIVERABLE_RUBRIC).toEqual({
      accuracy: 40,
      clarity: 25,
      completeness: 20,
      actionability: 15,
    });
  });
  it("deducts 25/15/5/1 per finding and maps CWEs to severities", () => {
    expect(SECURITY_DEDUCTIONS).toEqual({ critical: 25, high: 15, medium: 5, low: 1 });
    const by = (s: string) =>
      Object.keys(CWE_SEVERITY)
        .filter((c) => CWE_SEVERITY[c] === s)
        .sort();
    expect(by("critical")).toEqual(["CWE-1321", "CWE-287", "CWE-78", "CWE-798", "CWE-89"]);
    expect(by("high")).toEqual(["CWE-22", "CWE-327", "CWE-328", "CWE-502", "CWE-79", "CWE-916"]);
    expect(by("medium")).toEqual(["CWE-209", "CWE-338", "CWE-352"]);
    expect(by("low")).toEqual(["CWE-532", "CWE-693"]);
  });
  it("scores stability 100/50/0", () => {
    expect(STABILITY_SCORES).toEqual({ clean: 100, warnings: 50, crashed: 0 });
  });
  it("tables every family exactly as the agent-run spec does", () => {
    const rows = Object.entries(FAMILY_WEIGHTS).map(([f, w]) => [
      f,
      w.objective,
      w.process,
      w.strategy,
      w.recovery,
      w.efficiency,
    ]);
    expect(rows).toEqual([
      ["default", 45, 15, 15, 10, 10],
      ["blacksite-debug", 45, 20, 10, 20, 5],
      ["fog-of-war", 35, 20, 25, 15, 5],
      ["false-summit", 40, 15, 10, 15, 10],
      ["versus-arena", 30, 15, 25, 20, 10],
      ["marathon-strategy", 30, 15, 30, 15, 10],
      ["constraint-maze", 40, 20, 20, 10, 10],
      ["recovery-lab", 30, 15, 10, 35, 10],
      ["humanity-gap", 30, 15, 30, 10, 10],
    ]);
  });
  it("bands every score 0–100 exactly once", () => {
    expect(BANDS.map((b) => [b.label, b.min, b.max])).toEqual([
      ["Elite", 90, 100],
      ["Strong", 75, 89],
      ["Competent", 55, 74],
      ["Struggling", 35, 54],
      ["Weak", 15, 34],
      ["Failed", 0, 14],
    ]);
    for (let s = 0; s <= 100; s++)
      expect(BANDS.filter((b) => s >= b.min && s <= b.max)).toHaveLength(1);
    expect([90, 89, 75, 74, 55, 54, 35, 34, 15, 14, 0].map((s) => resolveBand(s).key)).toEqual([
      "elite",
      "strong",
      "strong",
      "competent",
      "competent",
      "struggling",
      "struggling",
      "weak",
      "weak",
      "failed",
      "failed",
    ]);
  });
  it("bands a score rounded half up, at every boundary", () => {
    const cases: [number, string][] = [
      [100, "elite"],
      [89.5, "elite"],
      [89.4999, "strong"],
      [74.5, "strong"],
      [74.4999, "competent"],
      [54.5, "competent"],
      [34.5, "struggling"],
      [14.5, "weak"],
      [14.4999, "failed"],
      [0, "failed"],
    ];
    for (const [score, band] of cases)
      expect([score, resolveBand(score).key]).toEqual([score, band]);
  });
});
