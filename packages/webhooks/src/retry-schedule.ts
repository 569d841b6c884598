/**
 * @module webhooks/retry-schedule
 * When to retry a failed delivery: a fixed exponential table with "equal jitter" (each
 * delay uniform between half and all of its step), honouring the receiver's `Retry-After`.
 * Pure: randomness and the clock are arguments, so a schedule is reproducible.
 *
 * Invariants: delays are whole seconds in [1, MAX_RETRY_DELAY_SECONDS] (Queues accepts a
 * per-message delay up to 24 h on the current limits page and 12 h on an older one: we stay
 * within 12 h); a delay is never shorter than the receiver's `Retry-After`, except for the cap.
 */
import { err, ok, type Result } from "@bouts/result";

/**
 * Nominal delay in seconds before retry n (index n − 1), after attempt n failed. Attempt 1 is
 * the first send, so a message gets 1 + 10 attempts over about 35 hours.
 */
export const RETRY_STEPS_SECONDS = [
  5,
  30,
  120,
  600,
  1800,
  3600,
  3 * 3600,
  6 * 3600,
  12 * 3600,
  12 * 3600,
] as const;
/** Attempts in total, the first send included. */
export const MAX_ATTEMPTS = RETRY_STEPS_SECONDS.length + 1;
/** No delay, `Retry-After` included, exceeds this (12 h). */
export const MAX_RETRY_DELAY_SECONDS = 12 * 3600;

/** Why no further attempt is scheduled. */
export type RetryError = { reason: "exhausted"; attempts: number };

/** When to make the next attempt. */
export interface RetryPlan {
  /** The 1-based number of the next attempt. */
  nextAttempt: number;
  /** Whole seconds to wait (a Queues `delaySeconds`). */
  delaySeconds: number;
}

/**
 * Computes the delay before the next attempt after attempt `attempt` (1-based, as Queues'
 * `message.attempts`) failed; `exhausted` after the last attempt. `random` returns a number
 * in [0, 1) (`Math.random` in production, a fixed sequence in tests).
 * @example
 * computeRetryDelay(1, () => 0.5)            // ok { nextAttempt: 2, delaySeconds: 4 }
 * computeRetryDelay(3, () => 0, 900)         // ok { nextAttempt: 4, delaySeconds: 900 }
 */
export function computeRetryDelay(
  attempt: number,
  random: () => number,
  retryAfterSeconds?: number | null,
): Result<RetryPlan, RetryError> {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const step = RETRY_STEPS_SECONDS[attempt - 1];
  if (step === undefined) return err({ reason: "exhausted", attempts: attempt });
  const r = random();
  if (!(r >= 0 && r < 1)) throw new RangeError(`random() must return [0, 1), got ${r}`);
  const jittered = Math.ceil(step / 2 + (r * step) / 2);
  const floor = retryAfterSeconds != null && retryAfterSeconds > 0 ? retryAfterSeconds : 0;
  const delaySeconds = Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(1, jittered, Math.ceil(floor)));
  return ok({ nextAttempt: attempt + 1, delaySeconds });
}

/**
 * Parses a `Retry-After` header value (delta-seconds or an HTTP date) into whole seconds
 * from `now`, capped at {@link MAX_RETRY_DELAY_SECONDS}; `null` when absent or unreadable.
 * A date in the past reads as 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (value == null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_DELAY_SECONDS, Number(text));
  // An HTTP date always names a weekday and "GMT"; refuse looser strings that Date.parse
  // would read in local time.
  if (!/^[A-Za-z]{3},? .*GMT$/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  const seconds = Math.ceil((at - now.getTime()) / 1000);
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(0, seconds));
}
