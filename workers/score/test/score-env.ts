/** The score role under test, and a way to take a lease as another consumer would. */
import { claimScoringLease } from "@bouts/db";
import { db } from "./helpers.ts";

export * from "../src/index.ts";

/** Takes the scoring lease as if another consumer were working on the submission. */
export async function claimScoringLeaseForTest(submissionId: string): Promise<boolean> {
  return (await claimScoringLease(db(), submissionId, Date.now(), 15 * 60 * 1000)).claimed;
}
