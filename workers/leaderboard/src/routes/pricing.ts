/**
 * @module leaderboard/routes/pricing
 * The platform's price table (docs/leaderboard.md, "Cost"): anyone reads the revision in force;
 * an operator sets a new one. Invariants: revisions are append-only (D1 triggers); every price
 * is decimal text checked by `@bouts/contracts` and parsed exactly by `@bouts/ranking`; a
 * new revision re-prices every board within the version cache's lifetime, never rescoring.
 */
import { createRoute } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { createDb, savePriceTable } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { fail } from "../errors.ts";
import type { PublicReadAccess } from "../public-read.ts";
import { readPrices } from "../reads.ts";
import { PriceTableRequestSchema, PriceTableWireSchema } from "../schemas.ts";
import type { LeaderboardEnv } from "../types.ts";

const tags = ["pricing"];

/** The price table routes, to mount at /v1. */
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

  routes.openapi(
    createRoute({
      method: "put",
      path: "/pricing",
      tags,
      summary: "Set a new price table revision (operators)",
      description:
        "Replaces the prices in force with a new revision (the old ones stay stored). Models " +
        "absent from it are not priced: their runs show `not-priced`, never a partial sum.",
      security: SECURITY.operator,
      middleware: [operatorOnly] as const,
      request: {
        body: {
          required: true,
          content: { "application/json": { schema: PriceTableRequestSchema } },
        },
      },
      responses: {
        201: json(PriceTableWireSchema, "The new revision, now in force"),
        ...problems(...ACCESS_PROBLEMS.operator, 400, 415),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const row = await savePriceTable(createDb(c.env.DB), {
        asOf: body.asOf,
        models: body.models,
        setBy: operatorIdOf(c.var.principal),
        setAt: Date.now(),
      });
      return c.json(
        {
          revision: row.revision,
          asOf: row.asOf,
          models: body.models,
          setAt: new Date(row.setAt).toISOString(),
        },
        201,
      );
    },
  );

  return routes;
}
