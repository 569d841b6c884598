/**
 * @module scoring/pairing
 * The paired comparison of two scores on the tests both faced (docs/scoring.md, "Paired
 * comparison"; docs/design.md §27). A breakdown's pairing profile holds its verdicts on the
 * shared tests (static tests by category, pre-built adversarial tests by severity) as bits in
 * test-id order, what one passed test is worth, and the variance of what is not shared (judge
 * panels, generated adversarial tests). Which tests and panels those are is the breakdown's
 * profile's to say (its registry entry's pairing hook, profiles/, built with
 * pairing-strata.ts). Two profiles of one suite give the standard error of the difference of
 * the two scores, in which a test both passed, or both failed, adds nothing.
 * Pure and deterministic; doubles (a significance test, not a score).
 */
import { ok, type Result } from "@bouts/result";
import { PAIRING_METHOD, type Breakdown, type PairingProfile } from "./breakdown.ts";
import type { ScoringError } from "./errors.ts";
import type { ScoreInput } from "./input.ts";
import { fnv1a32 } from "./prng.ts";
import { isProfileId, scoringProfileOf, unknownProfile } from "./profiles/registry.ts";

/** Two-sided 95 %: a difference counts when it exceeds 1.96 standard errors. */
export const PAIRING_Z = 1.96;

/** Two 32-bit FNV-1a lanes over the canonical listing: a 64-bit suite digest. */
function suiteDigest(strata: readonly { key: string; ids: string[] }[]): string {
  const text = strata.map((s) => `${s.key}\n${s.ids.join("\n")}`).join("\n\n");
  const a = fnv1a32(text);
  const b = fnv1a32(`bouts.suite\n${text}`);
  return `fnv1a64:${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}`;
}

/**
 * The pairing profile of a breakdown, or null when its input carries no per-test verdicts
 * (`static.tests`). A list that contradicts the counts is refused, naming the field.
 * @example computePairingProfile(input, breakdown).value?.suite // "fnv1a64:…"
 */
export function computePairingProfile(
  input: ScoreInput,
  b: Breakdown,
): Result<PairingProfile | null, ScoringError> {
  const id = input.profile;
  if (!isProfileId(id)) return unknownProfile(id);
  const part = scoringProfileOf(id).pairing(input, b);
  if (!part.ok || part.value === null) return part as Result<null, ScoringError>;
  const strata = part.value.strata;
  return ok({
    method: PAIRING_METHOD,
    suite: suiteDigest(strata),
    strata: strata.map(({ key, n, coef, passed }) => ({ key, n, coef, passed })),
    ownVariance: part.value.ownVariance,
  });
}

/** A pairing profile with its verdicts unpacked into 32-bit words, ready to compare. */
export interface CompiledPairing {
  suite: string;
  /**
   * The suite digest and each stratum's key, test count and word count, as one string: two
   * profiles can be paired exactly when their shapes are equal.
   */
  shape: string;
  ownVariance: number;
  /** `passes`: the stratum's set bits (its words' popcount), counted once at compile time. */
  strata: { key: string; n: number; coef: number; words: Uint32Array; passes: number }[];
}

/**
 * Unpacks a profile's verdict bits once (a board compares each profile many times); null for a
 * profile of another method or with malformed bits.
 */
export function compilePairing(p: PairingProfile): CompiledPairing | null {
  if (p.method !== PAIRING_METHOD) return null;
  const strata: CompiledPairing["strata"] = [];
  for (const s of p.strata) {
    if (!/^[0-9a-f]*$/.test(s.passed) || s.passed.length !== Math.ceil(s.n / 4)) return null;
    const words = new Uint32Array(Math.ceil(s.passed.length / 8));
    let passes = 0;
    for (let w = 0; w < words.length; w++) {
      words[w] = parseInt(s.passed.slice(w * 8, w * 8 + 8).padEnd(8, "0"), 16) >>> 0;
      passes += popcount(words[w]!);
    }
    strata.push({ key: s.key, n: s.n, coef: s.coef, words, passes });
  }
  const shape = JSON.stringify([p.suite, ...strata.map((s) => [s.key, s.n, s.words.length])]);
  return { suite: p.suite, shape, ownVariance: p.ownVariance, strata };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** The outcome of a paired comparison: which score is surely higher, or neither. */
export type PairedOrder = "first" | "second" | "tied";

/** A score and its compiled pairing profile, for {@link comparePaired}. */
export interface PairedSide {
  /** The unrounded final score. */
  point: number;
  profile: CompiledPairing;
}

/**
 * The standard error of the difference of two scores that faced the same suite: shared tests
 * are resampled together, so only tests on which the two differ add variance; each side's
 * judges and generated tests add their own. Null when the suites differ (no pairing possible).
 */
export function pairedStandardError(a: CompiledPairing, b: CompiledPairing): number | null {
  const v = pairedVariance(a, b);
  return v === null ? null : Math.sqrt(v);
}

/** The variance (points²) under {@link pairedStandardError}; null when the suites differ. */
export function pairedVariance(a: CompiledPairing, b: CompiledPairing): number | null {
  return sameSuite(a, b) ? sharedVariance(a, b) : null;
}

/** {@link pairedVariance} of two profiles of one shape. */
function sharedVariance(a: CompiledPairing, b: CompiledPairing): number {
  let variance = a.ownVariance + b.ownVariance;
  for (let s = 0; s < a.strata.length; s++) {
    const x = a.strata[s]!;
    const y = b.strata[s]!;
    // Only the tests both passed need the bits: the rest follow from each side's passes.
    let both = 0;
    for (let w = 0; w < x.words.length; w++) both += popcount(x.words[w]! & y.words[w]!);
    const onlyA = x.passes - both;
    const onlyB = y.passes - both;
    // One draw's difference: cA − cB (both passed), cA (only A), −cB (only B), 0 (neither);
    // the sum of n draws with replacement has n times one draw's variance.
    const mean = (both * (x.coef - y.coef) + onlyA * x.coef - onlyB * y.coef) / x.n;
    const square =
      (both * (x.coef - y.coef) ** 2 + onlyA * x.coef ** 2 + onlyB * y.coef ** 2) / x.n;
    variance += Math.max(0, x.n * (square - mean * mean));
  }
  return variance;
}

/**
 * Compares two scores that faced the same suite: "first" when `a` is higher by more than 1.96
 * standard errors of the paired difference, "second" when `b` is, else "tied". Null when the
 * suites differ. Symmetric: swapping the sides swaps the answer.
 * @example comparePaired({ point: 84, profile: compilePairing(p)! }, { point: 80, profile: compilePairing(q)! }) // "first"
 */
export function comparePaired(a: PairedSide, b: PairedSide): PairedOrder | null {
  return orderPaired(a.point, a.profile, b.point, b.profile);
}

const Z_SQUARED = PAIRING_Z * PAIRING_Z;

/** True when two profiles describe the same suite, stratum by stratum (pairing is possible). */
function sameSuite(a: CompiledPairing, b: CompiledPairing): boolean {
  return a.shape === b.shape;
}

/** {@link comparePaired} without the wrapping objects (a board compares thousands of pairs). */
export function orderPaired(
  aPoint: number,
  a: CompiledPairing,
  bPoint: number,
  b: CompiledPairing,
): PairedOrder | null {
  return sameSuite(a, b) ? orderSameShape(aPoint, a, bPoint, b) : null;
}

/**
 * {@link orderPaired} for two profiles whose shapes are known to be equal (a board groups its
 * profiles by shape once, then compares within a group): the same answer, without comparing
 * the shapes again. Profiles of different shapes give a meaningless answer.
 */
export function orderSameShape(
  aPoint: number,
  a: CompiledPairing,
  bPoint: number,
  b: CompiledPairing,
): PairedOrder {
  const diff = aPoint - bPoint;
  // The variance is at least the two sides' own (shared tests only add to it): a difference
  // within that bound is tied without counting a test.
  if (diff * diff <= Z_SQUARED * (a.ownVariance + b.ownVariance)) return "tied";
  // |diff| > z·se, squared: no square root per pair.
  if (diff * diff > Z_SQUARED * sharedVariance(a, b)) return diff > 0 ? "first" : "second";
  return "tied";
}
