/**
 * @module webhooks
 * The runtime-agnostic core of Bouts webhooks: Standard Webhooks signing, target-URL
 * validation (SSRF rules), the retry schedule, one delivery attempt with bounded reads, event
 * payloads and the endpoint-health policy. Web-standard APIs only (fetch, crypto.subtle, URL,
 * TextEncoder, AbortSignal): runs unchanged on Workers and Node. No storage, no queue, no
 * clock: those are the platform Worker's (see docs/webhooks.md).
 */
export {
  createMessageId,
  createSecret,
  parseSecret,
  signPayload,
  verifySignature,
  MAX_ACTIVE_SECRETS,
  SECRET_BYTES,
  SECRET_PREFIX,
  TIMESTAMP_TOLERANCE_SECONDS,
  type SignatureHeaders,
  type SigningError,
  type SignOptions,
  type VerificationError,
  type VerifyOptions,
} from "./signing.ts";
export * from "./ip-address.ts";
export {
  validateTargetUrl,
  MAX_TARGET_URL_LENGTH,
  METADATA_HOSTS,
  SPECIAL_USE_TLDS,
  type LoopbackPortRule,
  type TargetUrlError,
  type TargetUrlOptions,
  type TargetUrlRule,
  type ValidTargetUrl,
} from "./target-url.ts";
export {
  computeRetryDelay,
  parseRetryAfter,
  MAX_ATTEMPTS,
  MAX_RETRY_DELAY_SECONDS,
  RETRY_STEPS_SECONDS,
  type RetryError,
  type RetryPlan,
} from "./retry-schedule.ts";
export {
  deliverWebhook,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  USER_AGENT,
  type DeliverOptions,
  type DeliveryOutcome,
  type DeliveryResponse,
} from "./deliver.ts";
export * from "./events.ts";
export * from "./endpoint-health.ts";
