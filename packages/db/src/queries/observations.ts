/**
 * @module db/queries/observations
 * The platform's own records that an agent's telemetry trace is checked against
 * (docs/design.md §40): the agent's earlier submissions to a challenge, and whether the same
 * code was scored there before. Invariants: read-only; "before" is by the time the platform
 * received or scored a row, never by anything the agent reported; the submission itself is
 * never counted.
 */
import { and, count, eq, lt, max, ne } from "drizzle-orm";
import type { Db } from "../db.ts";
import { submissions } from "../schema.ts";
import { auditEvents } from "../schema-audit.ts";
import { scores } from "../schema-scores.ts";

/** The agent's submissions to a challenge received before one of them. */
export interface EarlierSubmissions {
  /** How many, whatever became of them (scored, failed, waiting). */
  count: number;
  /** When the latest of them was received (epoch ms), or null when there is none. */
  lastReceivedAt: number | null;
}

/**
 * Counts the agent's submissions to the challenge received before `receivedAt` (the submission
 * `excludeId` itself never counts), and the receipt time of the latest.
 */
export async function findEarlierSubmissions(
  db: Db,
  q: { agentId: string; challengeId: string; receivedAt: number; excludeId: string },
): Promise<EarlierSubmissions> {
  const row = await db
    .select({ n: count(), last: max(submissions.receivedAt) })
    .from(submissions)
    .where(
      and(
        eq(submissions.agentId, q.agentId),
        eq(submissions.challengeId, q.challengeId),
        lt(submissions.receivedAt, q.receivedAt),
        ne(submissions.id, q.excludeId),
      ),
    )
    .get();
  return { count: row?.n ?? 0, lastReceivedAt: row?.last ?? null };
}

/**
 * True when files with the canonical hash `filesSha256` were scored on the challenge before
 * `before` (epoch ms) by any agent, other than the submission `excludeId`: their public report
 * could have been read by then. "Scored" is the submission's `scored` audit event, written with
 * its first score and never rewritten: a version's promotion or a rejudge moves `scored_at`, and
 * a re-computation must not find a score "later" than it was first read.
 */
export async function hasScoredSameFiles(
  db: Db,
  q: { challengeId: string; filesSha256: string; before: number; excludeId: string },
): Promise<boolean> {
  const row = await db
    .select({ id: scores.submissionId })
    .from(scores)
    .innerJoin(
      auditEvents,
      and(eq(auditEvents.submissionId, scores.submissionId), eq(auditEvents.type, "scored")),
    )
    .where(
      and(
        eq(scores.challengeId, q.challengeId),
        eq(scores.filesSha256, q.filesSha256),
        lt(auditEvents.at, q.before),
        ne(scores.submissionId, q.excludeId),
      ),
    )
    .limit(1)
    .get();
  return row !== undefined;
}
