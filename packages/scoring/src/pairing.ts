/**
 * @module scoring/pairing
 * The paired comparison of two scores on the tests both faced (docs/scoring.md, "Paired
 * comparison"; docs/design.md §27). A breakdown's pairing profile holds its verdicts on the
 * shared tests (static tests by category, pre-built adversarial tests by severity) as bits in
 * test-id order, what one passed test is worth, and the variance of what is not shared (judge
 * panels, generated adversarial tests). Two profiles of one suite give the standard error of
 * the difference of the two scores, in which a test both passed, or both failed, adds nothing.
 * Pure and deterministic; doubles (a significance test, not a score).
 */
import { ok, type Result } from "@bouts/result";
import { aggregateScore } from "./aggregate.ts";
import {
  PAIRING_METHOD,
  type Breakdown,
  type ObjectiveBreakdown,
  type PairingProfile,
  type PairingStratum,
} from "./breakdown.ts";
import { invalid, type ScoringError } from "./errors.ts";
import { parseFraction, type ExactValue } from "./exact.ts";
import type { EngineeringInput, ScoreInput, StaticTestVerdict } from "./input.ts";
import { multisets } from "./interval.ts";
import { fnv1a32 } from "./prng.ts";
import { ADVERSARIAL_WEIGHT_HALVES, SEVERITIES } from "./tables.ts";

/** Two-sided 95 %: a difference counts when it exceeds 1.96 standard errors. */
export const PAIRING_Z = 1.96;

/** The bootstrap variance of a judge panel's aggregated score (judges drawn with replacement). */
function panelVariance(judges: readonly { score: ExactValue }[]): number {
  const scores = judges.map((j) => parseFraction(j.score.fraction));
  const n = scores.length;
  if (n < 2 || scores.some((s) => s === null)) return 0;
  const factorial = (k: number): number => (k <= 1 ? 1 : k * factorial(k - 1));
  let mean = 0;
  let square = 0;
  for (const counts of multisets(n)) {
    const drawn = counts.flatMap((k, j) =>
      Array.from({ length: k }, (_, r) => ({ judge: `j${j}#${r}`, score: scores[j]! })),
    );
    const weight = counts.reduce((w, k) => w / factorial(k), factorial(n)) / n ** n;
    const value = aggregateScore(drawn).toNumber();
    mean += weight * value;
    square += weight * value * value;
  }
  return Math.max(0, square - mean * mean);
}

function bits(verdicts: readonly boolean[]): string {
  let out = "";
  for (let i = 0; i < verdicts.length; i += 4) {
    let nibble = 0;
    for (let j = 0; j < 4; j++) if (verdicts[i + j]) nibble |= 8 >> j;
    out += nibble.toString(16);
  }
  return out;
}

/** A stratum of the given tests, in ascending id order. */
function stratum(
  key: string,
  tests: readonly { id: string; passed: boolean }[],
  coef: number,
): PairingStratum & { ids: string[] } {
  const sorted = [...tests].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return {
    key,
    n: sorted.length,
    coef,
    passed: bits(sorted.map((t) => t.passed)),
    ids: sorted.map((t) => t.id),
  };
}

interface Part {
  strata: (PairingStratum & { ids: string[] })[];
  ownVariance: number;
}

/** The shared strata and own variance of an engineering breakdown, its points scaled by `factor`. */
function engineeringPart(
  input: EngineeringInput,
  b: ObjectiveBreakdown,
  factor: number,
): Result<Part | null, ScoringError> {
  const tests = (input.static as { tests?: unknown }).tests;
  if (tests === undefined) return ok(null);
  const checked = checkTests(tests, input.static.total, input.static.passed);
  if (!checked.ok) return checked;
  const part: Part = { strata: [], ownVariance: 0 };
  for (const c of b.components) {
    switch (c.key) {
      case "static": {
        const coef = (factor * c.weight) / c.details.total;
        const byCategory = new Map<string, StaticTestVerdict[]>();
        for (const t of checked.value)
          byCategory.set(t.category, [...(byCategory.get(t.category) ?? []), t]);
        for (const [category, list] of [...byCategory].sort(([x], [y]) => (x < y ? -1 : 1)))
          part.strata.push(stratum(`static:${category}`, list, coef));
        break;
      }
      case "adversarial": {
        const totalHalves = c.details.weightedTotal * 2;
        if (totalHalves === 0) break;
        for (const severity of SEVERITIES) {
          const coef = (factor * c.weight * ADVERSARIAL_WEIGHT_HALVES[severity]) / totalHalves;
          const of = input.adversarial.tests.filter((t) => t.severity === severity);
          const prebuilt = of.filter((t) => t.origin === "prebuilt");
          if (prebuilt.length > 0)
            part.strata.push(stratum(`adversarial:${severity}`, prebuilt, coef));
          // Generated tests are written per submission: not shared, resampled on their own.
          const generated = of.filter((t) => t.origin === "generated");
          const g = generated.length;
          if (g > 0) {
            const p = generated.filter((t) => t.passed).length / g;
            part.ownVariance += g * p * (1 - p) * coef * coef;
          }
        }
        break;
      }
      case "codeQuality": {
        const f = (factor * c.weight) / 100;
        part.ownVariance += f * f * panelVariance(c.details.panel.judges);
        break;
      }
      case "deliverables": {
        const f = (factor * c.weight) / (100 * c.details.items.length);
        for (const item of c.details.items)
          if (item.status === "submitted")
            part.ownVariance += f * f * panelVariance(item.panel.judges);
        break;
      }
      default:
        break; // security, stability: one observation, no variation
    }
  }
  return ok(part);
}

function checkTests(
  tests: unknown,
  total: number,
  passed: number,
): Result<StaticTestVerdict[], ScoringError> {
  if (!Array.isArray(tests)) return invalid("static.tests", "must be an array of test verdicts");
  if (tests.length !== total)
    return invalid("static.tests", `lists ${tests.length} tests, static.total is ${total}`);
  const seen = new Set<string>();
  let passes = 0;
  for (const [i, t] of (tests as unknown[]).entries()) {
    const v = t as Partial<StaticTestVerdict> | null;
    if (
      !v ||
      typeof v.id !== "string" ||
      v.id.length === 0 ||
      typeof v.category !== "string" ||
      typeof v.passed !== "boolean"
    )
      return invalid(`static.tests.${i}`, "must be { id, category, passed }");
    if (seen.has(v.id))
      return invalid(`static.tests.${i}.id`, `duplicate test id ${JSON.stringify(v.id)}`);
    seen.add(v.id);
    if (v.passed) passes++;
  }
  if (passes !== passed)
    return invalid("static.tests", `${passes} tests pass, static.passed is ${passed}`);
  return ok(tests as StaticTestVerdict[]);
}

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
  let part: Result<Part | null, ScoringError>;
  if (input.profile === "engineering") {
    part = engineeringPart(input, { ...b, objective: null }, 1);
  } else {
    const objective = b.components.find((c) => c.key === "objective");
    if (!b.objective || !objective) return ok(null);
    part = engineeringPart(input.objective, b.objective, objective.weight / 100);
    if (part.ok && part.value)
      for (const c of b.components)
        if (c.key === "process" || c.key === "strategy" || c.key === "recovery") {
          const f = c.weight / 100;
          part.value.ownVariance += f * f * panelVariance(c.details.judges);
        }
  }
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
