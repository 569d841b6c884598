/**
 * @module archive/result
 * The Result shape of expected failures (STYLE.md, error model 1). Pure: no I/O, no clock.
 */

/** A value or a typed error; chain with `if (!r.ok) return r`. */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Wraps a value as a success. */
export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

/** Wraps an expected failure. */
export function err<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
