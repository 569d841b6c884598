/**
 * @module webhooks-worker
 * The webhook role of the platform Worker: agent routes under /v1/webhooks
 * (`webhookRoutes`, each behind @bouts/auth's `agentOnly`, mounted by the platform), the
 * consumers of `bouts-webhooks` and `bouts-webhooks-dlq`, and the cron's pruning of the
 * delivery log (`sweepWebhooks`). Invariant: every failure is a problem document, rendered by
 * the app's one `onError` (@bouts/edge) through this role's mapper (`errors.ts`).
 */
export { consumeDeadWebhooks, consumeWebhooks, type ConsumeOptions } from "./consumer.ts";
// The queue's messages are `@bouts/contracts`' (queues.ts, webhook-events.ts); re-exported.
export {
  DeliveryMessageSchema,
  EventMessageSchema,
  WebhookQueueMessageSchema,
  type DeliveryMessage,
  type EventMessage,
  type WebhookQueueMessage,
} from "@bouts/contracts";
export {
  MAX_ENDPOINTS_PER_AGENT,
  MAX_TESTS_PER_AGENT,
  MAX_TESTS_PER_ENDPOINT,
  ROTATION_OVERLAP_MS,
  TEST_QUOTA_WINDOW_MS,
  SUBSCRIBABLE_EVENT_TYPES,
  // The endpoint actions, for the platform's MCP tools (the same functions as the routes).
  deleteEndpoint,
  listEndpoints,
  registerEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
} from "./routes/endpoints.ts";
export {
  Endpoint as WebhookEndpointSchema,
  RegisterBody as RegisterWebhookBodySchema,
} from "./routes/endpoint-schemas.ts";
export { DELIVERY_RETENTION_MS, sweepWebhooks } from "./sweep.ts";

/** The webhook routes, to mount at /v1. */
export { endpointRoutes as webhookRoutes } from "./routes/endpoints.ts";
