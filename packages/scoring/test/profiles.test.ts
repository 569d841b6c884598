/**
 * The profile registry: one entry per profile id, each carrying what the engine does by profile
 * (compute, public cut, pairing and interval hooks, labels), and no id without an entry: the
 * `@ts-expect-error` below is checked by `npm run typecheck` (this folder is in the package's
 * tsconfig), so it fails the moment a registry without an entry compiles.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  computeScore,
  isProfileId,
  PROFILES,
  SCORING_PROFILES,
  scoringProfileOf,
  toPublicBreakdown,
  type Breakdown,
  type ProfileId,
  type ProfileRegistry,
  type ScoreInput,
  type ScoringProfile,
  AGENT_VERSION,
  AGENT_VERSION_BEFORE_TRUST,
  CROSS_CHECKED_AGENT_EXAMPLE,
} from "../src/index.ts";
import { seedEngineering, buildAgent } from "./fixtures.ts";

/** A profile the engine does not have: its input, and an entry for it. */
interface NovelInput {
  profile: "novel";
  points: number;
}
const NOVEL_PROFILE: ScoringProfile<NovelInput> = {
  ...(SCORING_PROFILES.engineering as unknown as ScoringProfile<NovelInput>),
  id: "novel",
};

const scored = (input: ScoreInput): Breakdown => {
  const r = computeScore(input, { interval: { seed: "submission:profiles" } });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};

describe("the profile registry", () => {
  it("lists the profile ids once, in registry order, each keyed by its own id", () => {
    expect(PROFILES).toEqual(["engineering", "agent"]);
    expect(Object.keys(SCORING_PROFILES)).toEqual(PROFILES);
    for (const id of PROFILES) expect(SCORING_PROFILES[id].id).toBe(id);
    expectTypeOf<(typeof PROFILES)[number]>().toEqualTypeOf<ProfileId>();
    expectTypeOf<ProfileId>().toEqualTypeOf<"engineering" | "agent">();
    expectTypeOf<Breakdown["profile"]>().toEqualTypeOf<ProfileId>();
  });

  it("does not compile without an entry for every profile id", () => {
    // @ts-expect-error: the input union has the profile "novel", the registry no entry for it.
    const missing: ProfileRegistry<ScoreInput | NovelInput> = SCORING_PROFILES;
    const complete: ProfileRegistry<ScoreInput | NovelInput> = {
      ...SCORING_PROFILES,
      novel: NOVEL_PROFILE,
    };
    expect(Object.keys(complete)).toEqual([...Object.keys(missing), "novel"]);
  });

  it("tells profile ids from other strings, inherited keys included", () => {
    expect(PROFILES.every(isProfileId)).toBe(true);
    for (const other of ["novel", "__proto__", "toString", "", null, 1])
      expect(isProfileId(other)).toBe(false);
  });

  it("refuses an input of no profile, naming every profile id", () => {
    const r = computeScore({ profile: "novel" } as unknown as ScoreInput);
    expect(r).toEqual({
      ok: false,
      error: {
        reason: "invalid-input",
        field: "profile",
        detail: 'must be "engineering" or "agent", got "novel"',
      },
    });
  });

  it("stamps each breakdown with its entry's id, version and component labels", () => {
    for (const input of [seedEngineering(), CROSS_CHECKED_AGENT_EXAMPLE]) {
      const b = scored(input);
      const profile = scoringProfileOf(b.profile);
      expect(b.profile).toBe(input.profile);
      expect(b.profileVersion).toBe(profile.version);
      expect(b.components.map((c) => [c.key, c.label])).toEqual(
        Object.entries(profile.labels.components),
      );
    }
  });

  it("stamps an agent run that uses none of v2's rules with v1, whose rules scored it", () => {
    const b = scored(buildAgent());
    expect(b.profileVersion).toBe(AGENT_VERSION_BEFORE_TRUST);
    expect(scoringProfileOf("agent").version).toBe(AGENT_VERSION);
  });

  it("gives each breakdown its own profile's public cut", () => {
    for (const input of [seedEngineering(), buildAgent()]) {
      const b = scored(input);
      expect(toPublicBreakdown(b)).toEqual(scoringProfileOf(b.profile).publicCut(b));
    }
  });
});
