/**
 * @module platform/app
 * The platform's one Hono app: the roles' routes composed with `app.route()` (ingest, the
 * webhook role and the metering gateway under /v1, the leaderboard role and its pages at the root, the two challenge
 * reads that span roles here, the MCP endpoint at /mcp), each route with its own access (@bouts/auth: public, optional
 * key, agent, operator), the one `onError` and 404/405 answer (@bouts/edge), `/healthz` (the
 * Worker's own 200 with the runner's probed state beside it, never a 500 for a runner that is down), and
 * the OpenAPI 3.1 document of exactly these routes (`/openapi.json`) with its interactive docs
 * (`/docs`, Swagger UI served by this Worker, `routes/docs.ts`). The pages' stylesheet and
 * script are static assets (public/, [assets]) served before this app runs.
 */
import { createApp, declareBodyTimeout, registerSecuritySchemes } from "@bouts/edge";
import { ingestRoutes } from "@bouts/ingest";
import {
  createLeaderboardRoutes,
  createPublicRead,
  resolveCacheOptions,
  type LeaderboardEnv,
  type LeaderboardRoutesOptions,
} from "@bouts/leaderboard";
import { probeRunner, type RunnerEnv } from "@bouts/score";
import { gatewayRoutes } from "@bouts/gateway-worker";
import { webhookRoutes } from "@bouts/webhooks-worker";
import { OPENAPI_INFO } from "./openapi.ts";
import { createChallengeReadRoutes } from "./routes/challenges.ts";
import { createDocsRoutes } from "./routes/docs.ts";
import { createMcpRoutes } from "./mcp/index.ts";

/** Options of the app (tests turn the leaderboard's version cache off). */
export type PlatformAppOptions = LeaderboardRoutesOptions;

/** Builds the platform app. */
export function createPlatformApp(options: PlatformAppOptions = {}) {
  const cache = resolveCacheOptions(options);
  const access = createPublicRead(cache);
  const app = createApp<LeaderboardEnv>()
    .route("/v1", ingestRoutes)
    .route("/v1", createChallengeReadRoutes(access))
    .route("/v1", webhookRoutes)
    .route("/v1", gatewayRoutes)
    .route("/", createMcpRoutes(cache))
    .route("/", createLeaderboardRoutes(options, access));

  // The Worker answers 200 whenever it runs; the runner's state is reported beside it, so a
  // runner that is down shows here (docs/runner.md, "Recovering a deployment") without the
  // Worker's own health failing with it.
  app.get("/healthz", async (c) =>
    c.json({ ok: true, runner: await probeRunner(c.env as unknown as RunnerEnv) }),
  );
  registerSecuritySchemes(app.openAPIRegistry);
  let document: ReturnType<typeof app.getOpenAPI31Document> | null = null;
  app.get("/openapi.json", (c) => {
    document ??= declareBodyTimeout(app.getOpenAPI31Document(OPENAPI_INFO));
    return c.json(document);
  });
  app.route("/", createDocsRoutes());
  return app;
}
