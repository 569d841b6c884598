/**
 * @module contracts/stored-breakdown
 * The one reading of a breakdown as D1 stores it (`scores.breakdown`, the full-suite
 * `scores_private.breakdown`): JSON text of a `BreakdownSchema` breakdown. Every reader parses it
 * here, and a row that does not parse means one thing everywhere: the breakdown is unreadable as
 * a whole (no part of it, its interval, pairing or judging alone, is trusted). A reader whose
 * answer is the breakdown answers 503 (a fault of ours, not the caller's); a reader that only
 * takes its extras (the board's interval and pairing, a webhook's judging) logs it and goes on
 * without them, as for a breakdown stored before they existed. Never throws. Pure: zod only.
 */
import type { Result } from "@bouts/result";
import type { PairingProfileWire } from "./scoring.ts";
import { BreakdownSchema, type BreakdownWire } from "./scoring.ts";
import { WebhookJudgingSchema, type WebhookJudging } from "./webhook-events.ts";

/** Why a stored breakdown could not be read: its text is not JSON, or not a breakdown. */
export interface UnreadableBreakdownError {
  reason: "unreadable-breakdown";
  /** What did not parse, for the log (never shown to a caller). */
  detail: string;
}

/**
 * Parses a stored breakdown: the breakdown, or `unreadable-breakdown` for text that is not JSON
 * or not a breakdown of `BreakdownSchema` (breakdowns stored before `judging` read as
 * "unspecified", before `interval` and `pairing` without them).
 * @example parseStoredBreakdown(row.breakdown) // { ok: true, value: { schema: "bouts.breakdown/v1", … } }
 */
export function parseStoredBreakdown(
  text: string,
): Result<BreakdownWire, UnreadableBreakdownError> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return unreadable(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = BreakdownSchema.safeParse(raw);
  if (!parsed.success) return unreadable(`not a breakdown: ${parsed.error.message}`);
  return { ok: true, value: parsed.data };
}

const unreadable = (detail: string) =>
  ({ ok: false, error: { reason: "unreadable-breakdown", detail } }) as const;

/** What the board takes of a stored breakdown: its interval's ends and its pairing profile. */
export interface BoardExtras {
  /** The 95 % interval as nearest doubles of its exact ends. */
  interval?: { low: number; high: number };
  pairing?: PairingProfileWire;
}

/**
 * The board's extras of a parsed breakdown; each absent when the breakdown has none (stored
 * before it existed).
 * @example boardExtrasOf(breakdown).interval // { low: 75.825, high: 88.325 }
 */
export function boardExtrasOf(b: BreakdownWire): BoardExtras {
  return {
    ...(b.interval ? { interval: { low: b.interval.low.value, high: b.interval.high.value } } : {}),
    ...(b.pairing ? { pairing: b.pairing } : {}),
  };
}

/**
 * Who judged a parsed breakdown, in the two fields a webhook carries; null when they do not fit
 * the webhook's shape (the sender then says "unspecified").
 */
export function webhookJudgingOf(b: BreakdownWire): WebhookJudging | null {
  const judging = WebhookJudgingSchema.safeParse({
    panel: b.judging.panel,
    summary: b.judging.summary,
  });
  return judging.success ? judging.data : null;
}
