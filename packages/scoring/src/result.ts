/**
 * @module scoring/result
 * The Result shape for expected failures: values, not exceptions. Pure.
 */

/** Success or a typed failure. Chain with `if (!r.ok) return r`. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** Wraps a success value. */
export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

/** Wraps a failure value. */
export const err = <E>(error: E): { ok: false; error: E } => ({ ok: false, error });

/** Why the engine refused an input. Every variant names the offending field or rule. */
export type ScoringError =
  | { reason: "invalid-input"; field: string; detail: string }
  | { reason: "not-measured"; field: string; detail: string }
  | { reason: "weight-rule"; rule: WeightRule; detail: string };

/** The custom-weight rules of docs/design.md §6, by name. */
export type WeightRule =
  | "whole-percent"
  | "component-minimum"
  | "objective-minimum"
  | "objective-largest"
  | "efficiency-minimum"
  | "sum-range";

/** Builds an invalid-input error for `field`. */
export const invalid = (field: string, detail: string): { ok: false; error: ScoringError } =>
  err({ reason: "invalid-input", field, detail });
