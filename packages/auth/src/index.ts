/**
 * @module auth
 * API keys, roles and rate limits for the platform's routes, attached per route: public reads
 * (`limitByIp`), optional keys (`optionalKey`, `keyOrPublic`), agent routes (`agentOnly`) and
 * operator routes (`operatorOnly`). Failures are problem+json through this package's own
 * mapper (`toProblem`): 401 with WWW-Authenticate, 403, 429 with Retry-After.
 */
export { AuthHttpError, fail, toProblem, type AuthError } from "./errors.ts";
export {
  readBearer,
  resolveCaller,
  resolvePrincipal,
  verifyPrincipal,
  type Bearer,
  type Caller,
  type Principal,
} from "./keys.ts";
export {
  ACCESS_PROBLEMS,
  agentIdOf,
  agentOnly,
  authenticate,
  keyOrPublic,
  limitByIp,
  limitRate,
  operatorIdOf,
  operatorOnly,
  optionalKey,
  requireAgent,
  requireOperator,
  type AuthBindings,
  type CallerEnv,
  type PrincipalEnv,
} from "./middleware.ts";
export { checkIpRateLimit, checkRateLimit, resolveRateLimitKey } from "./rate-limit.ts";
