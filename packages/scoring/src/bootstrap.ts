/**
 * @module scoring/bootstrap
 * How the 95 % interval of a final score is drawn (docs/scoring.md, "Score interval";
 * docs/design.md §22), whatever the profile: a profile's interval hook (profiles/) describes its
 * breakdown as an `IntervalModel` — strata of tests resampled within themselves, judge panels
 * resampled and re-aggregated, a fixed part, the critical cap, a nested Objective — with the
 * helpers here, and this module draws the replicates through that exact formula and takes the
 * percentiles. Knows no profile. Pure and deterministic: the caller passes the seed.
 *
 * Exactness: every replicate's score is an exact rational over one common denominator `D`
 * computed up front, so replicates are integers `N / D`, added and compared exactly (as
 * doubles while every sum stays below 2⁵³, as bigints beyond).
 */
import { aggregateScore, type PanelScore } from "./aggregate.ts";
import { INTERVAL_METHOD, type Breakdown, type ScoreInterval } from "./breakdown.ts";
import { Exact, parseFraction, toExactValue, type ExactValue } from "./exact.ts";
import { createPrng, type Prng } from "./prng.ts";

/** Confidence level of the published interval, in percent. */
export const INTERVAL_LEVEL = 95;
/** Bootstrap replicates per interval unless the caller asks for another count. */
export const INTERVAL_REPLICATES = 1000;

/** A bootstrap stratum: `n` tests of which `passed` passed, each worth `coef` points when passed. */
interface Stratum {
  n: number;
  passed: number;
  coef: Exact;
}

/**
 * A judge panel whose aggregated score, capped at `cap` when it has one (a trust cap,
 * trust.ts), contributes `min(score, cap) × factor` points.
 */
interface Panel {
  scores: Exact[];
  factor: Exact;
  cap: Exact | null;
}

/**
 * What one breakdown's score is made of, for resampling: built by a profile's interval hook
 * (with {@link createIntervalModel}, {@link addStrata}, {@link addPanel}), then drawn here.
 */
export interface IntervalModel {
  /** The points that enter every replicate unchanged. */
  fixed: Exact;
  strata: Stratum[];
  panels: Panel[];
  /** The critical-finding cap, when it applies. */
  cap: Exact | null;
  /** A nested Objective's model and its weight / 100 (the agent profile's). */
  nested: { model: IntervalModel; factor: Exact } | null;
  /** What varied between replicates, as the interval lists it. */
  resampled: string[];
  /** What entered every replicate unchanged, as the interval lists it. */
  fixedNotes: string[];
}

/** An empty model: nothing fixed, nothing resampled, capped at `cap` when given. */
export function createIntervalModel(cap: Exact | null = null): IntervalModel {
  return {
    fixed: Exact.ZERO,
    strata: [],
    panels: [],
    cap,
    nested: null,
    resampled: [],
    fixedNotes: [],
  };
}

/** The exact value of a published number (its fraction); 0 for one that does not parse. */
export const exactOf = (v: ExactValue): Exact => parseFraction(v.fraction) ?? Exact.ZERO;

/** For the `default` of an exhaustive switch over component keys. */
export const unreachableComponent = (x: never): never => {
  throw new TypeError(`unknown component ${JSON.stringify(x)}`);
};

/**
 * Adds strata; one without variation (all passed or all failed) goes to the fixed part.
 * True when at least one stratum varies.
 */
export function addStrata<G extends { n: number; passed: number }>(
  m: IntervalModel,
  groups: G[],
  coef: (g: G) => Exact,
): boolean {
  let varied = false;
  for (const g of groups) {
    if (g.n === 0) continue;
    const c = coef(g);
    if (g.passed === 0 || g.passed === g.n) m.fixed = m.fixed.add(c.mul(Exact.of(g.passed)));
    else {
      m.strata.push({ n: g.n, passed: g.passed, coef: c });
      varied = true;
    }
  }
  return varied;
}

/**
 * Adds a judge panel, resampled and re-aggregated in every replicate; with a `cap` (a component
 * capped by its trust), every replicate's aggregate is capped too, as the engine capped the
 * score. A panel without variation goes to the fixed part.
 */
export function addPanel(
  m: IntervalModel,
  name: string,
  judges: { score: ExactValue }[],
  factor: Exact,
  cap: Exact | null = null,
): void {
  const scores = judges.map((j) => exactOf(j.score));
  const first = scores[0];
  if (scores.length < 2 || !first || scores.every((s) => s.eq(first))) {
    const only = aggregateScore(scores.map((score, i) => ({ judge: `j${i}`, score })));
    m.fixed = m.fixed.add(capAt(only, cap).mul(factor));
    m.fixedNotes.push(`${name} (${scores.length} judge(s) in agreement: no variation)`);
    return;
  }
  if (cap !== null) {
    // Every redraw at or above the cap scores the cap: nothing varies.
    const redraws = multisets(scores.length).map((counts) => redrawScore(scores, counts, cap));
    if (redraws.every((v) => v.eq(cap))) {
      m.fixed = m.fixed.add(cap.mul(factor));
      m.fixedNotes.push(
        `${name} (capped at ${cap.toText()}: every redraw of its ${scores.length} judges reaches the cap)`,
      );
      return;
    }
  }
  m.panels.push({ scores, factor, cap });
  const capped = cap ? `, each replicate capped at ${cap.toText()}` : "";
  m.resampled.push(`${name}: ${scores.length} judges, resampled${capped}`);
}

/** min(score, cap), or the score when there is no cap. */
const capAt = (score: Exact, cap: Exact | null): Exact =>
  cap !== null && score.cmp(cap) > 0 ? cap : score;

/** The aggregate of a redraw (`counts[j]` draws of judge j), capped at `cap` when given. */
function redrawScore(
  scores: readonly Exact[],
  counts: readonly number[],
  cap: Exact | null,
): Exact {
  const drawn: PanelScore[] = [];
  counts.forEach((k, j) => {
    for (let r = 0; r < k; r++) drawn.push({ judge: `j${j}#${r}`, score: scores[j]! });
  });
  return capAt(aggregateScore(drawn), cap);
}

// ─── Compiling a model to integers over a common denominator ───

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};
const lcm = (a: bigint, b: bigint): bigint => (a / gcd(a, b)) * b;
const abs = (a: bigint): bigint => (a < 0n ? -a : a);

/** A panel compiled: each possible resample (a multiset of judges) → its points over D. */
interface CompiledPanel {
  size: number;
  /** powers[i] = (size + 1)^i: a resample's key is Σ powers[drawn judge]. */
  powers: number[];
  index: Map<number, number>;
  points: bigint[];
}

interface Compiled {
  den: bigint;
  fixed: bigint;
  strata: { n: number; passed: number; coef: bigint }[];
  panels: CompiledPanel[];
  cap: bigint | null;
  hundred: bigint;
  nested: { compiled: Compiled; coef: bigint } | null;
  /** An upper bound of |numerator| over every replicate. */
  bound: bigint;
}

/** Every multiset of `size` draws from `size` judges, as counts per judge (also for pairing-strata.ts). */
export function multisets(size: number): number[][] {
  const out: number[][] = [];
  const counts = new Array<number>(size).fill(0);
  const walk = (i: number, left: number): void => {
    if (i === size - 1) {
      counts[i] = left;
      out.push([...counts]);
      return;
    }
    for (let k = left; k >= 0; k--) {
      counts[i] = k;
      walk(i + 1, left - k);
    }
  };
  walk(0, size);
  return out;
}

function compile(m: IntervalModel): Compiled {
  const nested = m.nested ? compile(m.nested.model) : null;
  const panelValues = m.panels.map((p) => {
    const size = p.scores.length;
    const powers = Array.from({ length: size }, (_, i) => (size + 1) ** i);
    const values: { key: number; value: Exact }[] = multisets(size).map((counts) => {
      const key = counts.reduce((s, k, j) => s + k * powers[j]!, 0);
      return { key, value: redrawScore(p.scores, counts, p.cap).mul(p.factor) };
    });
    return { size, powers, values };
  });
  let den = m.fixed.den;
  for (const s of m.strata) den = lcm(den, s.coef.den);
  for (const p of panelValues) for (const v of p.values) den = lcm(den, v.value.den);
  let nestedCoef: Exact | null = null;
  if (nested && m.nested) {
    nestedCoef = m.nested.factor.div(Exact.of(nested.den));
    den = lcm(den, nestedCoef.den);
  }
  const over = (x: Exact): bigint => (x.num * den) / x.den;
  const strata = m.strata.map((s) => ({ n: s.n, passed: s.passed, coef: over(s.coef) }));
  const panels = panelValues.map((p) => ({
    size: p.size,
    powers: p.powers,
    index: new Map(p.values.map((v, i) => [v.key, i])),
    points: p.values.map((v) => over(v.value)),
  }));
  const fixed = over(m.fixed);
  let bound = abs(fixed) + 200n * den;
  for (const s of strata) bound += BigInt(s.n) * abs(s.coef);
  for (const p of panels) bound += p.points.reduce((a, v) => (abs(v) > a ? abs(v) : a), 0n);
  const nestedPart = nested && nestedCoef ? { compiled: nested, coef: over(nestedCoef) } : null;
  if (nestedPart) bound += 100n * nestedPart.compiled.den * abs(nestedPart.coef);
  return {
    den,
    fixed,
    strata,
    panels,
    cap: m.cap ? over(m.cap) : null,
    hundred: 100n * den,
    nested: nestedPart,
    bound,
  };
}

// ─── Drawing and evaluating the replicates ───

/** The random part of every replicate: passes per stratum, resample key per panel. */
interface Draws {
  strata: Int32Array[];
  panels: Int32Array[];
  nested: Draws | null;
}

function draw(c: Compiled, rng: Prng, replicates: number): Draws {
  const nested = c.nested ? draw(c.nested.compiled, rng, replicates) : null;
  const strata = c.strata.map((s) => {
    const cdf = binomialCdf(s.n, s.passed);
    const out = new Int32Array(replicates);
    for (let r = 0; r < replicates; r++) out[r] = sampleCdf(cdf, rng.next());
    return out;
  });
  const panels = c.panels.map((p) => {
    const out = new Int32Array(replicates);
    const ordered = p.size ** p.size;
    if (ordered <= ORDERED_TABLE_LIMIT) {
      // One word picks the ordered sequence of draws; the table maps it to its multiset.
      const table = new Int32Array(ordered);
      for (let code = 0; code < ordered; code++) {
        let key = 0;
        for (let j = 0, x = code; j < p.size; j++, x = Math.floor(x / p.size))
          key += p.powers[x % p.size]!;
        table[code] = p.index.get(key)!;
      }
      for (let r = 0; r < replicates; r++) out[r] = table[rng.below(ordered)]!;
      return out;
    }
    for (let r = 0; r < replicates; r++) {
      let key = 0;
      for (let j = 0; j < p.size; j++) key += p.powers[rng.below(p.size)]!;
      out[r] = p.index.get(key)!;
    }
    return out;
  });
  return { strata, panels, nested };
}

/** Panels of up to 5 judges (5⁵ = 3125 ordered resamples) draw one word per replicate. */
const ORDERED_TABLE_LIMIT = 4096;

/**
 * The cumulative distribution, scaled to 2³², of the number of passing tests among `n` draws
 * with replacement from a stratum of `n` tests of which `passed` pass: Binomial(n, passed/n).
 * Drawing from it is the same as drawing the `n` tests one by one, with one word instead of
 * `n`. Only +, ×, ÷ on doubles (correctly rounded in every JavaScript engine): deterministic.
 * The weights start at 1 at the mode and fall off both ways, so nothing underflows there.
 */
function binomialCdf(n: number, passed: number): Float64Array {
  const p = passed / n;
  const q = 1 - p;
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const w = new Float64Array(n + 1);
  w[mode] = 1;
  for (let k = mode; k < n; k++) w[k + 1] = (w[k]! * (n - k) * p) / ((k + 1) * q);
  for (let k = mode; k > 0; k--) w[k - 1] = (w[k]! * k * q) / ((n - k + 1) * p);
  let total = 0;
  for (let k = 0; k <= n; k++) total += w[k]!;
  const cdf = new Float64Array(n + 1);
  let acc = 0;
  for (let k = 0; k <= n; k++) {
    acc += w[k]!;
    cdf[k] = (acc / total) * 4294967296;
  }
  cdf[n] = 4294967296;
  return cdf;
}

/** The smallest k with word < cdf[k] (binary search). */
function sampleCdf(cdf: Float64Array, word: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (word < cdf[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Numerators over `c.den`, one per replicate: doubles (exact integers) when they fit. */
function evaluate(c: Compiled, d: Draws, replicates: number): Float64Array | bigint[] {
  const inner = c.nested && d.nested ? evaluate(c.nested.compiled, d.nested, replicates) : null;
  if (c.bound < SAFE && (inner === null || inner instanceof Float64Array)) {
    const out = new Float64Array(replicates).fill(Number(c.fixed));
    c.strata.forEach((s, i) => {
      const coef = Number(s.coef);
      const ks = d.strata[i]!;
      for (let r = 0; r < replicates; r++) out[r]! += ks[r]! * coef;
    });
    c.panels.forEach((p, i) => {
      const points = p.points.map(Number);
      const keys = d.panels[i]!;
      for (let r = 0; r < replicates; r++) out[r]! += points[keys[r]!]!;
    });
    if (inner && c.nested) {
      const coef = Number(c.nested.coef);
      for (let r = 0; r < replicates; r++) out[r]! += inner[r]! * coef;
    }
    const cap = c.cap === null ? Infinity : Number(c.cap);
    const hundred = Number(c.hundred);
    for (let r = 0; r < replicates; r++) out[r] = Math.max(0, Math.min(out[r]!, cap, hundred));
    return out;
  }
  const out = new Array<bigint>(replicates).fill(c.fixed);
  c.strata.forEach((s, i) => {
    const ks = d.strata[i]!;
    for (let r = 0; r < replicates; r++) out[r]! += BigInt(ks[r]!) * s.coef;
  });
  c.panels.forEach((p, i) => {
    const keys = d.panels[i]!;
    for (let r = 0; r < replicates; r++) out[r]! += p.points[keys[r]!]!;
  });
  if (inner && c.nested) {
    const coef = c.nested.coef;
    for (let r = 0; r < replicates; r++) {
      const v = inner[r]!;
      out[r]! += (typeof v === "bigint" ? v : BigInt(v)) * coef;
    }
  }
  for (let r = 0; r < replicates; r++) {
    let v = out[r]!;
    if (c.cap !== null && v > c.cap) v = c.cap;
    if (v > c.hundred) v = c.hundred;
    out[r] = v < 0n ? 0n : v;
  }
  return out;
}

function percentiles(
  values: Float64Array | bigint[],
  den: bigint,
  replicates: number,
): { low: Exact; high: Exact } {
  const lowIdx = Math.floor((replicates * (100 - INTERVAL_LEVEL)) / 200);
  const highIdx = Math.ceil((replicates * (100 + INTERVAL_LEVEL)) / 200) - 1;
  if (values instanceof Float64Array) {
    const work = values.slice();
    const low = select(work, lowIdx, 0, work.length - 1);
    // After selecting lowIdx, everything above it is ≥ it: select highIdx there.
    const high = select(work, highIdx, lowIdx, work.length - 1);
    return { low: Exact.of(BigInt(low), den), high: Exact.of(BigInt(high), den) };
  }
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { low: Exact.of(sorted[lowIdx]!, den), high: Exact.of(sorted[highIdx]!, den) };
}

/**
 * The k-th smallest of a[lo..hi] (Hoare's quickselect, middle pivot), partially reordering
 * `a` so that a[lo..k−1] ≤ a[k] ≤ a[k+1..hi]. Deterministic.
 */
function select(a: Float64Array, k: number, lo: number, hi: number): number {
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}

function toInterval(
  point: Exact,
  ends: { low: Exact; high: Exact },
  m: IntervalModel,
  seed: string,
  replicates: number,
): ScoreInterval {
  const low = ends.low.cmp(point) > 0 ? point : ends.low;
  const high = ends.high.cmp(point) < 0 ? point : ends.high;
  return {
    level: INTERVAL_LEVEL,
    low: toExactValue(low),
    high: toExactValue(high),
    method: INTERVAL_METHOD,
    prng: "xoshiro128**",
    seed,
    replicates,
    resampled: m.resampled,
    fixed: m.fixedNotes,
    widenedToPoint: low !== ends.low || high !== ends.high,
  };
}

/** The interval of a breakdown, and of its nested Objective for the agent profile. */
export interface BreakdownIntervals {
  interval: ScoreInterval;
  objective: ScoreInterval | null;
}

/**
 * Draws the intervals of a breakdown from its model (the caller has checked the seed and the
 * replicate count): the final score's, and its nested Objective's when the model nests one.
 */
export function drawIntervals(
  b: Breakdown,
  model: IntervalModel,
  seed: string,
  replicates: number,
): BreakdownIntervals {
  const compiled = compile(model);
  const draws = draw(compiled, createPrng(seed), replicates);
  const values = evaluate(compiled, draws, replicates);
  const interval = toInterval(
    exactOf(b.final.unrounded),
    percentiles(values, compiled.den, replicates),
    model,
    seed,
    replicates,
  );
  let objective: ScoreInterval | null = null;
  if (b.objective && model.nested && compiled.nested && draws.nested) {
    const inner = evaluate(compiled.nested.compiled, draws.nested, replicates);
    objective = toInterval(
      exactOf(b.objective.final.unrounded),
      percentiles(inner, compiled.nested.compiled.den, replicates),
      model.nested.model,
      seed,
      replicates,
    );
  }
  return { interval, objective };
}

/**
 * Which arithmetic a model's replicates use: exact integers in doubles while every sum stays
 * below 2⁵³, bigints beyond (both exact; for tests and benchmarks).
 */
export function modelArithmetic(model: IntervalModel): "double" | "bigint" {
  const c = compile(model);
  return c.bound < SAFE && (!c.nested || c.nested.compiled.bound < SAFE) ? "double" : "bigint";
}
