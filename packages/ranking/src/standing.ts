/**
 * @module ranking/standing
 * One agent's standing on a challenge board, its validation and the board's total order
 * (docs/design.md §7 plus a final tiebreak on agentId): the one owner of `Standing` and
 * `compareStandings`. The bands themselves are the scoring engine's (`@bouts/scoring`).
 * Pure: no I/O, no clock.
 */
import type { Result } from "@bouts/result";
import type { BandKey } from "@bouts/scoring";
import type { RankingError } from "./errors.ts";

/** What the board knows about one agent: the ranked submission's rounded score and tiebreakers. */
export interface Standing {
  readonly agentId: string;
  /** Rounded final score, an integer 0..100. */
  readonly score: number;
  /** Submissions used, an integer ≥ 1. */
  readonly iterations: number;
  /** Milliseconds from entering the challenge to the ranked submission, an integer ≥ 0. */
  readonly timeToFinalMs: number;
  /** Epoch milliseconds of the ranked submission, an integer ≥ 0. */
  readonly submittedAt: number;
}

/** A standing with its 1-based rank on the board. */
export interface RankedStanding extends Standing {
  readonly rank: number;
}

/** Longest accepted agentId, in UTF-16 code units. */
export const MAX_AGENT_ID_LENGTH = 256;
/** Largest accepted iteration count (stored as a 32-bit unsigned integer). */
export const MAX_ITERATIONS = 0xffff_ffff;

function refuse(field: string, detail: string): Result<never, RankingError> {
  return { ok: false, error: { reason: "invalid-standing", field, detail } };
}

/**
 * Checks that a value is a standing the index can hold, as a Result (never throws).
 * @example validateStanding({ agentId: "a", score: 101, iterations: 1, timeToFinalMs: 0, submittedAt: 0 })
 * // → { ok: false, error: { reason: "invalid-standing", field: "score", detail: "…" } }
 */
export function validateStanding(value: Standing): Result<Standing, RankingError> {
  if (typeof value !== "object" || value === null) return refuse("standing", "not an object");
  const { agentId, score, iterations, timeToFinalMs, submittedAt } = value;
  if (typeof agentId !== "string" || agentId.length === 0 || agentId.length > MAX_AGENT_ID_LENGTH) {
    return refuse("agentId", `must be a string of 1..${MAX_AGENT_ID_LENGTH} code units`);
  }
  if (!Number.isInteger(score) || score < 0 || score > 100) {
    return refuse("score", `must be an integer 0..100, got ${String(score)}`);
  }
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    return refuse(
      "iterations",
      `must be an integer 1..${MAX_ITERATIONS}, got ${String(iterations)}`,
    );
  }
  if (!Number.isSafeInteger(timeToFinalMs) || timeToFinalMs < 0) {
    return refuse("timeToFinalMs", `must be a safe integer ≥ 0, got ${String(timeToFinalMs)}`);
  }
  if (!Number.isSafeInteger(submittedAt) || submittedAt < 0) {
    return refuse("submittedAt", `must be a safe integer ≥ 0, got ${String(submittedAt)}`);
  }
  return { ok: true, value };
}

/** Like validateStanding, but throws a TypeError naming the field: for callers that already validated at the edge. */
export function assertStanding(value: Standing): void {
  const checked = validateStanding(value);
  if (!checked.ok) {
    const { error } = checked;
    const field = error.reason === "invalid-standing" ? error.field : "standing";
    throw new TypeError(`invalid standing: ${field} ${error.detail}`);
  }
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The board's total order: score DESC, iterations ASC, timeToFinalMs ASC, submittedAt ASC,
 * agentId ASC (UTF-16 code-unit order). Negative when `a` ranks above `b`.
 * @example [b, a].sort(compareStandings) // best first
 */
export function compareStandings(a: Standing, b: Standing): number {
  return (
    b.score - a.score ||
    a.iterations - b.iterations ||
    a.timeToFinalMs - b.timeToFinalMs ||
    a.submittedAt - b.submittedAt ||
    compareCodeUnits(a.agentId, b.agentId)
  );
}

/** Number of standings in each interpretation band (`@bouts/scoring`'s BANDS). */
export type BandCounts = Record<BandKey, number>;
