/**
 * @module leaderboard/breakdown-view
 * The public and the owner's view of a stored breakdown. Invariants: the public view keeps
 * every number needed to re-compute the score (each component's weight, score, contribution
 * and formula; each adjustment's points; the weighted sum, the final score, the math) and
 * drops what points into the agent's code or the challenge's hidden tests: security finding
 * locations, stability evidence text and adjustment citations. Neither view can contain
 * hidden test content: the engine's input never carries it.
 */
import type { BreakdownWire } from "@bouts/contracts";

type Component = BreakdownWire["components"][number];

const PRIVATE = "(visible to the submitting agent)";

function publicDetails(component: Component): Record<string, unknown> {
  const details = component.details;
  if (component.key === "security" && Array.isArray(details.findings)) {
    return {
      ...details,
      findings: (details.findings as Record<string, unknown>[]).map((f) => ({
        cwe: f.cwe ?? null,
        severity: f.severity ?? null,
        deduction: f.deduction ?? null,
      })),
    };
  }
  if (component.key === "stability" && Array.isArray(details.evidence)) {
    return { ...details, evidence: [], evidenceCount: details.evidence.length };
  }
  return details;
}

/**
 * The breakdown anyone may read: same numbers, no locations or citations.
 * @example toPublicBreakdown(stored).components[0].contribution // unchanged
 */
export function toPublicBreakdown(b: BreakdownWire): BreakdownWire {
  return {
    ...b,
    components: b.components.map((c) => ({ ...c, details: publicDetails(c) })),
    adjustments: b.adjustments.map((a) => ({
      ...a,
      evidence: a.evidence.map((e) => ({ item: e.item, points: e.points, citation: PRIVATE })),
    })),
    objective: b.objective ? toPublicBreakdown(b.objective) : null,
  };
}
