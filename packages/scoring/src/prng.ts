/**
 * @module scoring/prng
 * The engine's one source of pseudo-randomness, for the score interval's resampling
 * (docs/scoring.md, "Score interval"). Deterministic: a seed string gives the same stream on
 * every JavaScript engine (32-bit integer operations only, no floating-point functions).
 * Pure; the engine has no randomness of its own — the caller passes the seed.
 *
 * - Seed → state: FNV-1a (32-bit) over the seed's UTF-16 code units, then four SplitMix32
 *   steps fill the 128-bit state (never all zero).
 * - Stream: xoshiro128** (Blackman & Vigna, 2018), one 32-bit word per step.
 */

/** A seeded stream of 32-bit unsigned integers. */
export interface Prng {
  /** The next word, in [0, 2³²). */
  next(): number;
  /** A uniform integer in [0, n) for 1 ≤ n ≤ 2²¹ (multiply-shift; bias below n / 2³²). */
  below(n: number): number;
}

/** FNV-1a, 32 bits, over the string's UTF-16 code units. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A xoshiro128** stream seeded from `seed` (see the module header).
 * @example createPrng("submission:01J…").next() // the same word on every run
 */
export function createPrng(seed: string): Prng {
  let x = fnv1a32(seed);
  const splitmix = (): number => {
    x = (x + 0x9e3779b9) | 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  if ((a | b | c | d) === 0) a = 1;
  const next = (): number => {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return r;
  };
  // 2³² · n < 2⁵³ for n ≤ 2²¹: the product is exact in a double.
  const below = (n: number): number => Math.floor((next() * n) / 4294967296);
  return { next, below };
}

const rotl = (v: number, k: number): number => (v << k) | (v >>> (32 - k));
