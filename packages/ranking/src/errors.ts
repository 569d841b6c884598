/**
 * @module ranking/errors
 * The ranking error union, keyed by `reason` (the Result shape itself is `@bouts/result`'s).
 * Pure: no I/O, no clock.
 */

/** Why a cursor or a standing was refused; `detail` is for logs, not for the wire. */
export type RankingError =
  | { readonly reason: "bad-cursor"; readonly detail: string }
  | { readonly reason: "invalid-standing"; readonly field: string; readonly detail: string };
