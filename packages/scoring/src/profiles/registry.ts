/**
 * @module scoring/profiles/registry
 * The scoring profiles, one registry entry each (profile.ts says what an entry carries), and
 * the one list of their ids. Every choice the engine makes by profile goes through an entry:
 * `computeScore` (score.ts), `computeInterval` (interval.ts), `computePairingProfile`
 * (pairing.ts), `toPublicBreakdown` (view.ts). Exhaustive: the registry's type has one key per
 * profile id of the input union (input.ts), so an id without an entry does not compile; the
 * contracts' wire schemas (`PROFILE_INPUT_SCHEMAS`) and the score role's steps (`PROFILE_STEPS`)
 * are keyed the same way. To add a profile: docs/design.md, "How to add a scoring profile".
 * Pure.
 */
import { err, type Err } from "@bouts/result";
import type { ScoringError } from "../errors.ts";
import type { ProfileId } from "../input.ts";
import { AGENT_PROFILE } from "./agent.ts";
import { ENGINEERING_PROFILE } from "./engineering.ts";
import type { InputOf, ProfileRegistry, ScoringProfile } from "./profile.ts";

/** Every scoring profile, by id, in the order the API lists them. */
export const SCORING_PROFILES: ProfileRegistry = {
  engineering: ENGINEERING_PROFILE,
  agent: AGENT_PROFILE,
};

/** The profile ids, in registry order: the one list (contracts' `z.enum` reads it). */
export const PROFILES = Object.keys(SCORING_PROFILES) as [ProfileId, ...ProfileId[]];

/** True for the id of a profile of the registry. */
export const isProfileId = (id: unknown): id is ProfileId =>
  typeof id === "string" && Object.hasOwn(SCORING_PROFILES, id);

/**
 * The entry of the profile `id`, typed for that profile's input.
 * @example scoringProfileOf("engineering").labels.title // "Engineering composite"
 */
export function scoringProfileOf<K extends ProfileId>(id: K): ScoringProfile<InputOf<K>> {
  return SCORING_PROFILES[id];
}

/** The error for a `profile` the registry has no entry for, naming every id it has. */
export function unknownProfile(id: unknown): Err<ScoringError> {
  return err({
    reason: "invalid-input",
    field: "profile",
    detail: `must be ${PROFILES.map((p) => JSON.stringify(p)).join(" or ")}, got ${JSON.stringify(id ?? null)}`,
  });
}
