/**
 * @module scoring/view
 * The public view of a breakdown: what anyone may read, beside the stored (owner's) one.
 * Invariants: the public view keeps every number needed to re-compute the score (each
 * component's weight, score, contribution and formula; each adjustment's points; the weighted
 * sum, the final score, the math) and drops what points into the agent's code or the
 * challenge's hidden tests: security finding locations (with their rule and tool), stability
 * evidence text and adjustment citations. Neither view can contain hidden test content: the
 * engine's input never carries it. Pure.
 */
import type {
  Breakdown,
  ComponentBreakdown,
  ComponentBreakdownOf,
  ComponentDetailsMap,
  ComponentKey,
  ObjectiveBreakdown,
  SecurityDetails,
  StabilityDetails,
} from "./breakdown.ts";

/** What the public view shows in place of an adjustment's citation. */
export const PRIVATE_CITATION = "(visible to the submitting agent)";

/** Security in the public view: each finding's CWE, severity and deduction, no location. */
export interface PublicSecurityDetails extends Omit<SecurityDetails, "findings"> {
  findings: Pick<SecurityDetails["findings"][number], "cwe" | "severity" | "deduction">[];
}

/** Stability in the public view: the observations are counted, not shown. */
export interface PublicStabilityDetails extends Omit<StabilityDetails, "evidence"> {
  evidence: string[];
  evidenceCount: number;
}

/** The details of each component in the public view, by key. */
export interface PublicDetailsMap extends Omit<ComponentDetailsMap, "security" | "stability"> {
  security: PublicSecurityDetails;
  stability: PublicStabilityDetails;
}

/** One component in the public view, its `details` told apart by `key`. */
export type PublicComponentBreakdown = {
  [K in ComponentKey]: Omit<ComponentBreakdownOf<K>, "details"> & { details: PublicDetailsMap[K] };
}[ComponentKey];

/** A breakdown in the public view. */
export interface PublicBreakdown extends Omit<Breakdown, "components" | "objective"> {
  components: PublicComponentBreakdown[];
  objective: PublicObjectiveBreakdown | null;
}

/** A breakdown that nests none, in the public view. */
export type PublicObjectiveBreakdown = Omit<PublicBreakdown, "objective"> & { objective: null };

function toPublicComponent(c: ComponentBreakdown): PublicComponentBreakdown {
  switch (c.key) {
    case "security":
      return {
        ...c,
        details: {
          ...c.details,
          findings: c.details.findings.map((f) => ({
            cwe: f.cwe,
            severity: f.severity,
            deduction: f.deduction,
          })),
        },
      };
    case "stability":
      return {
        ...c,
        details: { ...c.details, evidence: [], evidenceCount: c.details.evidence.length },
      };
    default:
      return c;
  }
}

/**
 * The breakdown anyone may read: the same numbers, no locations, evidence text or citations.
 * @example toPublicBreakdown(stored).components[0].contribution // unchanged
 */
export function toPublicBreakdown(b: ObjectiveBreakdown): PublicObjectiveBreakdown;
export function toPublicBreakdown(b: Breakdown): PublicBreakdown;
export function toPublicBreakdown(b: Breakdown): PublicBreakdown {
  return {
    ...b,
    components: b.components.map(toPublicComponent),
    adjustments: b.adjustments.map((a) => ({
      ...a,
      evidence: a.evidence.map((e) => ({
        item: e.item,
        points: e.points,
        citation: PRIVATE_CITATION,
      })),
    })),
    objective: b.objective ? toPublicBreakdown(b.objective) : null,
  };
}
