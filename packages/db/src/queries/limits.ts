/**
 * @module db/queries/limits
 * Per-agent limits read from the submissions table. Invariant: "in flight" is exactly the
 * statuses `received`, `queued` and `running`, across all challenges (the same as the guard of
 * `insertSubmission`, which enforces the cap; this count is the early check before a body is
 * read, and names the reason of a refused insert).
 */
import type { Db } from "../db.ts";

// Read on every submit: raw statements whose SQL never changes.
const IN_FLIGHT = "agent_id = ?1 AND status IN ('received', 'queued', 'running')";

/** How many of the agent's submissions are in flight (received, queued or running). */
export async function countSubmissionsInFlight(db: Db, agentId: string): Promise<number> {
  const row = await db.$client
    .prepare(`SELECT COUNT(*) AS n FROM submissions WHERE ${IN_FLIGHT}`)
    .bind(agentId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
