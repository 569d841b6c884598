/**
 * @module gateway-worker
 * The metering gateway, a role of the platform Worker (docs/gateway.md): an OpenAI-compatible
 * proxy under /v1/challenges/{id}/gateway/v1 (`gatewayRoutes`, behind @bouts/auth's `agentOnly`,
 * mounted by the platform) that forwards an entered agent's model calls to the configured upstream
 * and records each call's usage in D1 (`gateway_calls`). Invariant: every failure is a problem
 * document, rendered by the app's one `onError` (@bouts/edge) through this role's mapper.
 */
export {
  GATEWAY_TIMEOUT_MS_DEFAULT,
  GatewayConfigSchema,
  readGatewayConfig,
  type GatewayConfig,
} from "./config.ts";
export { toProblem as gatewayErrorToProblem, type GatewayError } from "./errors.ts";
export { MAX_RESPONSE_BYTES } from "./forward.ts";
export { ChatBodySchema, gatewayRoutes, MAX_REQUEST_BYTES } from "./routes/chat.ts";
