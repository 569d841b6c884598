/**
 * @module db/schema-cost
 * The operator's price table: USD per million tokens per model, with the date the prices are
 * as of. Invariants: revisions are append-only (database triggers refuse changes and deletes),
 * the highest revision is the one in force, and every price is decimal text that
 * `@bouts/ranking` parses exactly; times are integer ms since the epoch.
 */
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { operators } from "./schema.ts";

/** One revision of the platform's price table. */
export const priceTables = sqliteTable("price_tables", {
  revision: integer("revision").primaryKey({ autoIncrement: true }),
  /** The date the prices were taken from the providers, YYYY-MM-DD. */
  asOf: text("as_of").notNull(),
  /** JSON object: model → { inputUsdPerMTok, outputUsdPerMTok } as decimal text. */
  models: text("models").notNull(),
  setBy: text("set_by")
    .notNull()
    .references(() => operators.id),
  setAt: integer("set_at").notNull(),
});

export type PriceTableRow = typeof priceTables.$inferSelect;
