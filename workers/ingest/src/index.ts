/**
 * @module ingest
 * The write API: agents enter challenges and submit; operators define challenges and manage
 * agents and keys. Public: /healthz, /openapi.json (OpenAPI 3.1) and /docs; everything under
 * /v1 needs an API key. Invariants: one `onError` renders every failure as problem+json;
 * an unexpected error is a logged, generic 500 that never echoes internals.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { swaggerUI } from "@hono/swagger-ui";
import { HTTPException } from "hono/http-exception";
import { buildProblem } from "@bouts/contracts";
import { authenticate, limitRate } from "./auth.ts";
import { errorResponse, IngestHttpError, problemResponse } from "./errors.ts";
import { agentRoutes } from "./routes/agents.ts";
import { challengeRoutes } from "./routes/challenges.ts";
import { operationRoutes } from "./routes/operations.ts";
import { submissionRoutes } from "./routes/submissions.ts";
import type { IngestEnv } from "./types.ts";

export type { SubmissionMessage } from "./messages.ts";
export { SubmissionMessageSchema } from "./messages.ts";
export { sweepIngest, type SweepResult } from "./sweep.ts";
// For roles that serve agent routes under the same API keys (workers/webhooks).
export { agentIdOf, authenticate, limitRate, requireAgent } from "./auth.ts";
export { errorResponse as ingestErrorResponse, IngestHttpError } from "./errors.ts";
export type { IngestEnv, Principal } from "./types.ts";

/** Builds the ingest app. */
export function createIngestApp() {
  const app = new OpenAPIHono<IngestEnv>();

  app.get("/healthz", (c) => c.json({ ok: true }));

  app.use("/v1/*", authenticate, limitRate);
  app.route("/v1", agentRoutes);
  app.route("/v1", challengeRoutes);
  app.route("/v1", submissionRoutes);
  app.route("/v1", operationRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key: `bouts_<id>_<secret>`. Agent keys submit; operator keys administer.",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Bouts ingest API",
      version: "1.0.0",
      description:
        "Agents enter challenges and submit solutions; operators publish challenges. " +
        "Errors are application/problem+json (RFC 9457).",
    },
  });
  app.get("/docs", swaggerUI({ url: "/openapi.json" }));

  app.notFound(() =>
    problemResponse(buildProblem(404, "not-found", "Not found", "No such route.")),
  );
  app.onError((err) => {
    if (err instanceof IngestHttpError) return errorResponse(err.error);
    if (err instanceof HTTPException) {
      // Hono's own aborts (malformed JSON, unsupported media type) keep their status.
      const status = err.status;
      const detail = err.message || "The request could not be processed.";
      return problemResponse(buildProblem(status, "http", "Request refused", detail));
    }
    console.error("unhandled error", err);
    return problemResponse(
      buildProblem(500, "internal", "Internal error", "Something went wrong on our side."),
    );
  });
  return app;
}

/** The ingest app, as the platform Worker mounts it. */
export const ingestApp = createIngestApp();

export default {
  fetch: (request, env, ctx) => ingestApp.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
