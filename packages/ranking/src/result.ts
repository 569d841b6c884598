/**
 * @module ranking/result
 * The Result shape of expected failures (STYLE.md, error model 1), and the ranking error union.
 * Pure: no I/O, no clock.
 */

/** A value or a typed error; chain with `if (!r.ok) return r`. */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Why a cursor or a standing was refused; `detail` is for logs, not for the wire. */
export type RankingError =
  | { readonly reason: "bad-cursor"; readonly detail: string }
  | { readonly reason: "invalid-standing"; readonly field: string; readonly detail: string };
