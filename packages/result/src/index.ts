/**
 * @module result
 * The one Result of expected failures (CONTRIBUTING.md, "Architecture rules"): a value or a
 * typed error, usually a tagged union keyed by `reason`; chain with `if (!r.ok) return r`, no
 * combinator library. Pure: no I/O, no clock, no dependencies.
 */

/** A success carrying `value`. */
export type Ok<T> = { readonly ok: true; readonly value: T };

/** An expected failure carrying `error`. */
export type Err<E> = { readonly ok: false; readonly error: E };

/**
 * A value or a typed error.
 * @example
 * function half(n: number): Result<number, { reason: "odd"; n: number }> {
 *   return n % 2 === 0 ? ok(n / 2) : err({ reason: "odd", n });
 * }
 */
export type Result<T, E> = Ok<T> | Err<E>;

/** Wraps a value as a success. */
export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });

/** Wraps an expected failure. */
export const err = <E>(error: E): Err<E> => ({ ok: false, error });
