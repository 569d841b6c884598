/**
 * @module ingest/routes/pricing
 * The operator's write of the platform's price table (docs/leaderboard.md, "Cost"):
 * `PUT /v1/pricing` sets a new revision. Reading the revision in force (`GET /v1/pricing`) is a
 * public read, the leaderboard role's. Invariants: operator keys only; revisions are append-only
 * (D1 triggers); every price is decimal text checked by `@bouts/contracts` and parsed exactly by
 * `@bouts/ranking`; a new revision re-prices every board within the leaderboard's version cache
 * lifetime, never rescoring.
 */
import { createRoute } from "@hono/zod-openapi";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { PriceTableBodySchema, PriceTableWireSchema } from "@bouts/contracts";
import { createDb, savePriceTable } from "@bouts/db";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import type { IngestEnv } from "../types.ts";

/** The price table write, to mount at /v1. */
export const pricingRoutes = createRouter<IngestEnv>();

/** A new price table revision, as an operator sends it. */
const PriceTableRequestSchema = PriceTableBodySchema.extend({
  // The record's key rules, stated in the document too (JSON Schema propertyNames).
  // (propertyNames is OpenAPI 3.1 / JSON Schema 2020-12; the metadata type only knows 3.0.)
  models: PriceTableBodySchema.shape.models.openapi({
    ...({ propertyNames: { type: "string", minLength: 1, maxLength: 200 } } as object),
    maxProperties: 500,
    description: "model name (1–200 characters) → its prices; at most 500 models",
  }),
}).openapi("PriceTableRequest", {
  example: {
    asOf: "2026-12-01",
    models: { "model-a": { inputUsdPerMTok: "3", outputUsdPerMTok: "15" } },
  },
});

pricingRoutes.openapi(
  createRoute({
    method: "put",
    path: "/pricing",
    tags: ["pricing"],
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
