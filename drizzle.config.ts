/**
 * drizzle-kit configuration: the D1 schema in packages/db generates flat SQL migrations in
 * /migrations, which wrangler applies (`wrangler d1 migrations apply`). Offline: no driver.
 */
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: [
    "./packages/db/src/schema.ts",
    "./packages/db/src/schema-scores.ts",
    "./packages/db/src/schema-webhooks.ts",
    "./packages/db/src/schema-usage.ts",
    "./packages/db/src/schema-audit.ts",
    "./packages/db/src/schema-cost.ts",
    "./packages/db/src/schema-private.ts",
    "./packages/db/src/schema-versions.ts",
    "./packages/db/src/schema-gateway.ts",
  ],
  out: "./migrations",
});
