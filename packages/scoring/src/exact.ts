/**
 * @module scoring/exact
 * Exact rational arithmetic on bigints, so that every published number is reproducible to
 * the last digit (docs/design.md §1: the engineering spec's example is 82.075, not 82.07499999).
 * Pure: no I/O. Values are immutable and always kept in lowest terms with a positive
 * denominator.
 */

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};

/** An exact rational number p/q. */
export class Exact {
  readonly num: bigint;
  readonly den: bigint;

  private constructor(num: bigint, den: bigint) {
    if (den === 0n) throw new RangeError("division by zero");
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num, den);
    this.num = g > 1n ? num / g : num;
    this.den = g > 1n ? den / g : den;
  }

  /** The rational `num / den`. */
  static of(num: bigint | number, den: bigint | number = 1n): Exact {
    return new Exact(BigInt(num), BigInt(den));
  }

  /**
   * The exact value of a finite number as written in decimal (0.1 → 1/10, not the binary
   * double). Returns null for NaN or ±Infinity.
   * @example Exact.fromNumber(74.5).toText() // "74.5"
   */
  static fromNumber(n: number): Exact | null {
    if (!Number.isFinite(n)) return null;
    if (Number.isInteger(n) && Number.isSafeInteger(n)) return new Exact(BigInt(n), 1n);
    const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n));
    if (!m) return null;
    const [, sign, int, frac = "", expText = "0"] = m;
    let num = BigInt(`${sign}${int}${frac}`);
    let den = 10n ** BigInt(frac.length);
    const exp = Number(expText);
    if (exp > 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
    return new Exact(num, den);
  }

  static readonly ZERO = Exact.of(0);
  static readonly HUNDRED = Exact.of(100);

  add(o: Exact): Exact {
    return new Exact(this.num * o.den + o.num * this.den, this.den * o.den);
  }
  sub(o: Exact): Exact {
    return new Exact(this.num * o.den - o.num * this.den, this.den * o.den);
  }
  mul(o: Exact): Exact {
    return new Exact(this.num * o.num, this.den * o.den);
  }
  /** Division; throws RangeError on a zero divisor (callers validate first). */
  div(o: Exact): Exact {
    return new Exact(this.num * o.den, this.den * o.num);
  }
  neg(): Exact {
    return new Exact(-this.num, this.den);
  }
  /** Negative, zero or positive as this is less than, equal to or greater than `o`. */
  cmp(o: Exact): number {
    const d = this.num * o.den - o.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  eq(o: Exact): boolean {
    return this.cmp(o) === 0;
  }
  isNegative(): boolean {
    return this.num < 0n;
  }
  /** Clamps into [lo, hi]. */
  clamp(lo: Exact, hi: Exact): Exact {
    return this.cmp(lo) < 0 ? lo : this.cmp(hi) > 0 ? hi : this;
  }

  /** Rounds half away from zero to an integer (half-up for the non-negative scores we publish). */
  roundHalfUp(): bigint {
    const twice = (2n * this.abs().num + this.den) / (2n * this.den);
    return this.num < 0n ? -twice : twice;
  }
  abs(): Exact {
    return this.num < 0n ? this.neg() : this;
  }

  /** Nearest double; for display and for JSON consumers that want a number. */
  toNumber(): number {
    return Number(this.toText(17).replace("…", ""));
  }

  /** True when the decimal expansion terminates (denominator has only factors 2 and 5). */
  isTerminating(): boolean {
    let d = this.den;
    while (d % 2n === 0n) d /= 2n;
    while (d % 5n === 0n) d /= 5n;
    return d === 1n;
  }

  /**
   * Decimal text: exact when the expansion terminates within `maxDigits` fraction digits,
   * otherwise rounded half-up to `maxDigits` and marked with a trailing "…".
   * @example Exact.of(3283, 40).toText() // "82.075"
   */
  toText(maxDigits = 6): string {
    const sign = this.num < 0n ? "-" : "";
    const a = this.abs();
    const int = a.num / a.den;
    let rem = a.num % a.den;
    let digits = "";
    while (rem !== 0n && digits.length < maxDigits) {
      rem *= 10n;
      digits += String(rem / a.den);
      rem %= a.den;
    }
    if (rem === 0n) return `${sign}${int}${digits ? `.${digits}` : ""}`;
    const scale = 10n ** BigInt(maxDigits);
    const scaled = Exact.of(a.num * scale, a.den).roundHalfUp();
    const intPart = scaled / scale;
    const frac = String(scaled % scale)
      .padStart(maxDigits, "0")
      .replace(/0+$/, "");
    return `${sign}${intPart}${frac ? `.${frac}` : ""}…`;
  }

  /** "p/q" in lowest terms ("p" for integers). */
  toFraction(): string {
    return this.den === 1n ? String(this.num) : `${this.num}/${this.den}`;
  }

  /** Sum of values. */
  static sum(values: readonly Exact[]): Exact {
    return values.reduce((a, b) => a.add(b), Exact.ZERO);
  }
}

/** A number as published in a breakdown: a convenient double, its decimal text, its exact fraction. */
export interface ExactValue {
  value: number;
  text: string;
  fraction: string;
}

/** Renders an exact number for the wire. */
export const toExactValue = (x: Exact): ExactValue => ({
  value: x.toNumber(),
  text: x.toText(),
  fraction: x.toFraction(),
});

/**
 * Parses an ExactValue's fraction back into an Exact (null when malformed), so a stored
 * breakdown can be re-checked.
 */
export const parseFraction = (text: string): Exact | null => {
  const m = /^(-?\d{1,40})(?:\/(\d{1,40}))?$/.exec(text);
  if (!m) return null;
  const den = BigInt(m[2] ?? "1");
  return den === 0n ? null : Exact.of(BigInt(m[1] ?? "0"), den);
};
