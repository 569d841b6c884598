/**
 * @module leaderboard/routes/pricing
 * The platform's price table as the public reads it (docs/leaderboard.md, "Cost"): anyone reads
 * the revision in force, with the public reads' cache and per-IP budget. Setting a new revision
 * is an operator write, the ingest role's (`PUT /v1/pricing`). Invariant: the revision read is
 * the highest stored; a new one re-prices every board within the version cache's lifetime.
 */
import { createRoute } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS } from "@bouts/auth";
import { PriceTableWireSchema } from "@bouts/contracts";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { fail } from "../errors.ts";
import type { PublicReadAccess } from "../public-read.ts";
import { readPrices } from "../reads.ts";
import type { LeaderboardEnv } from "../types.ts";

const tags = ["pricing"];

/** The price table read, to mount at /v1. */
export function createPricingRoutes(access: PublicReadAccess) {
  const routes = createRouter<LeaderboardEnv>();

  routes.openapi(
    createRoute({
      method: "get",
      path: "/pricing",
      tags,
      summary: "The price table in force: USD per million tokens per model, with its as-of date",
      security: SECURITY.public,
      middleware: [access.read] as const,
      responses: {
        200: json(PriceTableWireSchema, "The revision in force"),
        ...problems(...ACCESS_PROBLEMS.public, [404, "No price table has been set yet"]),
      },
    }),
    async (c) => {
      const table = await readPrices(c);
      if (!table) return fail({ reason: "not-found", resource: "price table (none set yet)" });
      return c.json(table, 200);
    },
  );

  return routes;
}
