/**
 * @module db/queries/cost
 * The price table: set a new revision, read the one in force. Invariants: revisions only grow
 * (the table is append-only, migration 0008); the highest revision is in force.
 */
import { desc } from "drizzle-orm";
import type { Db } from "../db.ts";
import { priceTables, type PriceTableRow } from "../schema-cost.ts";

/** A new price table revision as an operator sets it (prices as decimal text). */
export interface PriceTableWrite {
  asOf: string;
  models: Record<string, { inputUsdPerMTok: string; outputUsdPerMTok: string }>;
  setBy: string;
  setAt: number;
}

/** Appends a revision and answers it with its number. */
export async function savePriceTable(db: Db, w: PriceTableWrite): Promise<PriceTableRow> {
  const row = await db
    .insert(priceTables)
    .values({ asOf: w.asOf, models: JSON.stringify(w.models), setBy: w.setBy, setAt: w.setAt })
    .returning()
    .get();
  return row;
}

/** The revision in force (the highest), or null when no table was ever set. */
export async function findCurrentPriceTable(db: Db): Promise<PriceTableRow | null> {
  return (
    (await db.select().from(priceTables).orderBy(desc(priceTables.revision)).limit(1).get()) ?? null
  );
}
