/**
 * @module db/queries/limits
 * Per-agent limits read from the submissions table. Invariant: "in flight" is exactly the
 * statuses `received`, `queued` and `running`, across all challenges; the order of two
 * submissions is their commit order (rowid), never a clock, so two racing requests agree on
 * which came first.
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

/**
 * How many of the agent's submissions in flight were committed before `submissionId` (by
 * rowid: SQLite gives a new row a rowid above every existing one, and D1 commits one write at
 * a time). A submission that finds `limit` ahead of it is one too many, whatever the
 * interleaving of the requests that wrote them.
 */
export async function countSubmissionsInFlightBefore(
  db: Db,
  agentId: string,
  submissionId: string,
): Promise<number> {
  const row = await db.$client
    .prepare(
      `SELECT COUNT(*) AS n FROM submissions WHERE ${IN_FLIGHT}
        AND rowid < (SELECT rowid FROM submissions WHERE id = ?2)`,
    )
    .bind(agentId, submissionId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
