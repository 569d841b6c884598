/**
 * @module scoring/public-cut
 * The public view of a breakdown, in parts: its shapes, and the cuts a profile's public cut
 * (its registry entry's `publicCut`, profiles/) is made of. A component is cut by its key (the
 * component shapes are shared, breakdown.ts), an adjustment by hiding its citations.
 * Invariants: the public view keeps every number needed to re-compute the score (each
 * component's weight, score, contribution and formula; each adjustment's points; the weighted
 * sum, the final score, the math) and drops what points into the agent's code or the
 * challenge's hidden tests: security finding locations (with their rule and tool), stability
 * evidence text and adjustment citations. What a figure rests on (provenance, its basis and
 * cap) is public: it explains a number. Neither view can contain hidden test content: the
 * engine's input never carries it. Knows no profile. Pure.
 */
import type {
  AdjustmentBreakdown,
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

/** A component in the public view: security without locations, stability evidence counted. */
export function toPublicComponent(c: ComponentBreakdown): PublicComponentBreakdown {
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
 * An adjustment in the public view: its points stay, each citation is hidden; who made each
 * observation (its provenance) stays, as does the adjustment's own.
 */
export function toPublicAdjustment(a: AdjustmentBreakdown): AdjustmentBreakdown {
  return {
    ...a,
    evidence: a.evidence.map((e) => ({
      item: e.item,
      points: e.points,
      citation: PRIVATE_CITATION,
      ...(e.provenance ? { provenance: e.provenance } : {}),
    })),
  };
}

/**
 * A breakdown cut for the public: its components and adjustments as above, and its nested
 * Objective (if any) by `cutObjective`, the cut of the Objective's own profile.
 */
export function cutBreakdown(
  b: Breakdown,
  cutObjective: (o: ObjectiveBreakdown) => PublicBreakdown,
): PublicBreakdown {
  return {
    ...b,
    components: b.components.map(toPublicComponent),
    adjustments: b.adjustments.map(toPublicAdjustment),
    // An Objective nests none: its cut's `objective` is null, kept in its place.
    objective: b.objective ? { ...cutObjective(b.objective), objective: null } : null,
  };
}
