/**
 * @module webhooks/endpoint-health
 * When to disable an endpoint: on `410 Gone`, or when every attempt has failed for
 * {@link DISABLE_AFTER_FAILING_MS} (5 days) with at least {@link DISABLE_MIN_FAILURES}
 * failures. Pure: the history is a small value the caller stores (one D1 row per endpoint)
 * and updates with {@link recordDeliveryAttempt}; `now` is an argument.
 */
import type { DeliveryOutcome } from "./deliver.ts";

/** An endpoint failing continuously for this long is disabled (5 days). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
/** …provided at least this many attempts failed in that streak (one message's full schedule). */
export const DISABLE_MIN_FAILURES = 11;

/** The per-endpoint counters the policy needs. */
export interface EndpointHealthHistory {
  /** When the first failed attempt since the last success happened; null if none. */
  failingSince: Date | null;
  /** Failed attempts since the last success. */
  consecutiveFailures: number;
  /** When the endpoint last accepted a delivery; null if never. */
  lastSuccessAt: Date | null;
  /** True once an attempt got `410 Gone`. */
  gone: boolean;
}

/** The state of a new endpoint. */
export const HEALTHY_ENDPOINT: EndpointHealthHistory = {
  failingSince: null,
  consecutiveFailures: 0,
  lastSuccessAt: null,
  gone: false,
};

/** Whether to keep delivering, and if not, the sentence to show the agent. */
export type EndpointHealth =
  { action: "keep" } | { action: "disable"; reason: "gone" | "failing"; message: string };

/**
 * Folds one attempt's outcome into the history: a delivery resets the failure streak, any
 * other outcome extends it (an invalid target counts as a failure), a 410 marks it gone.
 */
export function recordDeliveryAttempt(
  history: EndpointHealthHistory,
  outcome: DeliveryOutcome["outcome"],
  at: Date,
): EndpointHealthHistory {
  if (outcome === "delivered")
    return { failingSince: null, consecutiveFailures: 0, lastSuccessAt: at, gone: false };
  return {
    failingSince: history.failingSince ?? at,
    consecutiveFailures: history.consecutiveFailures + 1,
    lastSuccessAt: history.lastSuccessAt,
    gone: history.gone || outcome === "disable",
  };
}

/**
 * Decides whether an endpoint stays enabled.
 * @example
 * assessEndpointHealth({ ...HEALTHY_ENDPOINT, gone: true }, now) // disable, reason "gone"
 */
export function assessEndpointHealth(history: EndpointHealthHistory, now: Date): EndpointHealth {
  if (history.gone)
    return {
      action: "disable",
      reason: "gone",
      message:
        "Disabled because your endpoint answered 410 Gone. Re-enable it through the API once it accepts deliveries again.",
    };
  const since = history.failingSince;
  if (
    since !== null &&
    now.getTime() - since.getTime() >= DISABLE_AFTER_FAILING_MS &&
    history.consecutiveFailures >= DISABLE_MIN_FAILURES
  )
    return {
      action: "disable",
      reason: "failing",
      message:
        `Disabled because every delivery attempt failed since ${since.toISOString()} ` +
        `(${history.consecutiveFailures} attempts over ${Math.floor((now.getTime() - since.getTime()) / 86_400_000)} days). ` +
        "Check the delivery log, fix the endpoint, then re-enable it and redeliver.",
    };
  return { action: "keep" };
}
