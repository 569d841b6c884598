/**
 * @module runner-auth
 * Request signing between the platform Worker and the runner: HMAC-SHA256 with
 * RUNNER_SHARED_SECRET, a ±300 s skew window and a replay guard (docs/runner.md,
 * "Authentication"; docs/design.md §21). Pure: WebCrypto only, no clock, no randomness.
 */
export {
  authenticateRunnerRequest,
  checkSecret,
  createReplayGuard,
  describeRunnerAuthError,
  MIN_SECRET_LENGTH,
  readSignatureHeaders,
  RUNNER_AUTH_HEADERS,
  signRunnerRequest,
  SKEW_WINDOW_SECONDS,
  verifyRunnerRequest,
  type ReplayGuard,
  type RunnerAuthError,
  type RunnerSignatureHeaders,
  type SignatureClaim,
  type SignedRequest,
} from "./signing.ts";
export { buildSignedRequest, type SignedRequestOptions } from "./request.ts";
