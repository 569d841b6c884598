/**
 * @module webhooks/result
 * The Result shape for expected failures: values, not exceptions. Pure.
 */

/** Success or a typed failure. Chain with `if (!r.ok) return r`. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** Wraps a success value. */
export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

/** Wraps a failure value. */
export const err = <E>(error: E): { ok: false; error: E } => ({ ok: false, error });
