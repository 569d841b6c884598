/**
 * @module scoring/errors
 * The engine's error union (`ScoringError`, keyed by `reason`); the Result shape itself is
 * `@bouts/result`'s. Pure.
 */
import { err, type Err } from "@bouts/result";

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
export const invalid = (field: string, detail: string): Err<ScoringError> =>
  err({ reason: "invalid-input", field, detail });
