/**
 * @module edge
 * The HTTP edge every role of the platform Worker shares: `HttpError` and problem+json
 * responses (RFC 9457), the OpenAPI helpers (the `Problem` component, problem responses,
 * JSON bodies, the API-key security schemes and requirements), the validation hook, the one
 * `onError`, the 404/405 answer and the request-body deadline. Roles keep only their own domain-error → problem mapping.
 */
export {
  answerInvalid,
  answerUnmatched,
  createApp,
  createRouter,
  handleError,
  resolveAllowedMethods,
  type AppOptions,
} from "./app.ts";
export {
  bodyDeadline,
  BodyTimeoutError,
  DEFAULT_BODY_DEADLINE,
  declareBodyTimeout,
  withBodyDeadline,
  type BodyDeadline,
} from "./body-deadline.ts";
export {
  answerProblem,
  answerRetryLater,
  answerSharedError,
  buildNotFound,
  defineDomainHttpError,
  HttpError,
  problemResponse,
  type ProblemAnswer,
  type SharedDomainError,
} from "./http-error.ts";
export {
  AGENT_KEY_SCHEME,
  json,
  OPERATOR_KEY_SCHEME,
  PROBLEM_STATUS_TEXT,
  ProblemDocSchema,
  problems,
  registerSecuritySchemes,
  SECURITY,
  SECURITY_SCHEMES,
  sseEventDoc,
  type ProblemSpec,
  type ProblemStatus,
} from "./openapi.ts";
export {
  ConfigError,
  createConfigReader,
  listConfigVariables,
  parseConfigVars,
  type ConfigVariable,
} from "./config.ts";
