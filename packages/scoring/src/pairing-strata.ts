/**
 * @module scoring/pairing-strata
 * What a profile's pairing hook (profiles/) builds a breakdown's pairing profile from
 * (docs/scoring.md, "Paired comparison"; docs/design.md §27): strata of shared tests as verdict
 * bits in test-id order, the bootstrap variance of a judge panel, the check of the per-test
 * verdicts against the counts. Knows no profile; pairing.ts finishes and compares the profiles.
 * Pure and deterministic; doubles (a significance test, not a score).
 */
import { ok, type Result } from "@bouts/result";
import { aggregateScore } from "./aggregate.ts";
import { multisets } from "./bootstrap.ts";
import type { PairingStratum } from "./breakdown.ts";
import { invalid, type ScoringError } from "./errors.ts";
import { parseFraction, type ExactValue } from "./exact.ts";
import type { StaticTestVerdict } from "./input.ts";

/**
 * The bootstrap variance of a judge panel's aggregated score (judges drawn with replacement),
 * each draw capped at `cap` when the component has one (a trust cap, as in the interval).
 */
export function panelVariance(
  judges: readonly { score: ExactValue }[],
  cap: number | null = null,
): number {
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
    const aggregate = aggregateScore(drawn).toNumber();
    const value = cap === null ? aggregate : Math.min(aggregate, cap);
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

/** A stratum of the given tests, in ascending id order (its ids kept for the suite digest). */
export function stratumOf(
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

/** A profile's shared strata (with their ids, for the suite digest) and its own variance. */
export interface PairingPart {
  strata: (PairingStratum & { ids: string[] })[];
  ownVariance: number;
}

/** The per-test verdicts, checked against the static counts they must agree with. */
export function checkStaticTests(
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
