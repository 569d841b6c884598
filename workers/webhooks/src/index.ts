/**
 * @module webhooks-worker
 * The webhook role of the platform Worker: agent routes under /v1/webhooks (API key, problem+
 * json), the consumers of `bouts-webhooks` and `bouts-webhooks-dlq`, and the cron's pruning of
 * the delivery log (`sweepWebhooks`). Invariants: one
 * `onError` renders every failure as problem+json (ingest's auth errors through ingest's own
 * mapper); an unexpected error is a logged, generic 500.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { buildProblem } from "@bouts/contracts";
import { authenticate, IngestHttpError, ingestErrorResponse, limitRate } from "@bouts/ingest";
import { problemResponse, resolveRetryAfter, toProblem, WebhooksHttpError } from "./errors.ts";
import { endpointRoutes } from "./routes/endpoints.ts";
import type { WebhooksEnv } from "./types.ts";

export { consumeDeadWebhooks, consumeWebhooks, type ConsumeOptions } from "./consumer.ts";
export {
  DeliveryMessageSchema,
  EventMessageSchema,
  WebhookQueueMessageSchema,
  type DeliveryMessage,
  type EventMessage,
  type WebhookQueueMessage,
} from "./messages.ts";
export {
  MAX_ENDPOINTS_PER_AGENT,
  MAX_TESTS_PER_AGENT,
  MAX_TESTS_PER_ENDPOINT,
  ROTATION_OVERLAP_MS,
  TEST_QUOTA_WINDOW_MS,
} from "./routes/endpoints.ts";
export { DELIVERY_RETENTION_MS, sweepWebhooks } from "./sweep.ts";

const ROUTE = /^\/v1\/webhooks(\/|$)/;

/** Whether the platform should route `request` to the webhooks app. */
export function isWebhooksRequest(request: Request): boolean {
  return ROUTE.test(new URL(request.url).pathname);
}

/** Builds the webhooks app. */
export function createWebhooksApp() {
  const app = new OpenAPIHono<WebhooksEnv>();
  app.use("/v1/*", authenticate, limitRate);
  app.route("/v1", endpointRoutes);
  app.notFound(() =>
    problemResponse(buildProblem(404, "not-found", "Not found", "No such route.")),
  );
  app.onError((err) => {
    if (err instanceof WebhooksHttpError)
      return problemResponse(toProblem(err.error), resolveRetryAfter(err.error));
    if (err instanceof IngestHttpError) return ingestErrorResponse(err.error);
    if (err instanceof HTTPException)
      return problemResponse(
        buildProblem(
          err.status,
          "http",
          "Request refused",
          err.message || "The request could not be processed.",
        ),
      );
    console.error("unhandled error", err);
    return problemResponse(
      buildProblem(500, "internal", "Internal error", "Something went wrong on our side."),
    );
  });
  return app;
}

/** The webhooks app, as the platform Worker mounts it. */
export const webhooksApp = createWebhooksApp();
