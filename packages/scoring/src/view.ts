/**
 * @module scoring/view
 * The public view of a breakdown: what anyone may read, beside the stored (owner's) one. The
 * breakdown's profile decides it (its registry entry's `publicCut`, profiles/), from the parts
 * in public-cut.ts, whose invariants it keeps: every number stays; finding locations, stability
 * evidence text and adjustment citations go. Pure.
 */
import type { Breakdown, ObjectiveBreakdown } from "./breakdown.ts";
import type { PublicBreakdown, PublicObjectiveBreakdown } from "./public-cut.ts";
import { isProfileId, scoringProfileOf } from "./profiles/registry.ts";

export {
  PRIVATE_CITATION,
  type PublicBreakdown,
  type PublicComponentBreakdown,
  type PublicDetailsMap,
  type PublicObjectiveBreakdown,
  type PublicSecurityDetails,
  type PublicStabilityDetails,
} from "./public-cut.ts";

/**
 * The breakdown anyone may read: the same numbers, no locations, evidence text or citations.
 * @example toPublicBreakdown(stored).components[0].contribution // unchanged
 */
export function toPublicBreakdown(b: ObjectiveBreakdown): PublicObjectiveBreakdown;
export function toPublicBreakdown(b: Breakdown): PublicBreakdown;
export function toPublicBreakdown(b: Breakdown): PublicBreakdown {
  if (!isProfileId(b.profile))
    throw new TypeError(`no public view of a breakdown of profile ${JSON.stringify(b.profile)}`);
  return scoringProfileOf(b.profile).publicCut(b);
}
