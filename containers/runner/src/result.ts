/**
 * @module runner/result
 * The Result type for expected failures: a value, never a throw. Errors are tagged unions
 * keyed by `reason`.
 */

/** Success or an expected, typed failure. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** Wraps a value as a success. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** Wraps an expected failure. */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
