/**
 * The CLI's breakdown table says what each agent-run figure rests on, as the page does: the
 * provenance of each component and adjustment, and a cap with the uncapped score; an
 * engineering breakdown (no provenance) prints as before.
 */
import { describe, expect, it } from "vitest";
import { renderBreakdown } from "../src/render.ts";

const t = (text: string) => ({ text, value: Number(text), fraction: text });

function breakdown(withProvenance: boolean) {
  return {
    submissionId: "sub-1",
    view: "public",
    profile: "agent",
    profileVersion: 2,
    final: { unrounded: "47.55875", rounded: 48 },
    breakdown: {
      band: { label: "Weak" },
      components: [
        {
          label: "Objective",
          weight: 45,
          score: t("80"),
          contribution: t("36"),
          ...(withProvenance
            ? { provenance: { kind: "observed", basis: "the runner", cap: null } }
            : {}),
        },
        {
          label: "Process",
          weight: 20,
          score: t("25"),
          contribution: t("5"),
          ...(withProvenance
            ? {
                provenance: {
                  kind: "self-reported",
                  basis: "the platform's records contradict the trace (2)",
                  cap: { max: 25, uncapped: t("80") },
                },
              }
            : {}),
        },
      ],
      adjustments: [
        {
          label: "Integrity",
          points: t("-15"),
          ...(withProvenance ? { provenance: { kind: "cross-checked", basis: "…" } } : {}),
        },
      ],
    },
  } as unknown as Parameters<typeof renderBreakdown>[0];
}

describe("renderBreakdown", () => {
  it("names each agent-run figure's provenance and its cap", () => {
    const out = renderBreakdown(breakdown(true)).split("\n");
    expect(out.find((l) => l.includes("Objective"))).toMatch(/\[observed\]$/);
    expect(out.find((l) => l.includes("Process"))).toMatch(
      /\[self-reported, capped at 25, uncapped 80\]$/,
    );
    expect(out.find((l) => l.includes("Integrity"))).toMatch(/\[self-reported, cross-checked\]$/);
  });

  it("prints a breakdown without provenance as before", () => {
    const out = renderBreakdown(breakdown(false));
    expect(out).not.toContain("[");
    expect(out.split("\n").find((l) => l.includes("Process"))).toMatch(/=\s+5$/);
  });
});
