/**
 * @module db/queries/usage
 * Runner-time accounting: the score role records what each runner request cost; ingest asks
 * whether an agent may spend more; operators read the figures. Invariants: recording is
 * idempotent by (run id, kind); a window is the half-open interval (now − window, now].
 */
import type { Db } from "../db.ts";
import type { RunnerUsageKind } from "../schema-usage.ts";

/** One runner request's cost, as the score role records it. */
export interface RunnerUsageRecord {
  runId: string;
  kind: RunnerUsageKind;
  submissionId: string;
  agentId: string;
  challengeId: string;
  runnerMs: number;
  recordedAt: number;
}

/** Records a runner request's wall time; a second record of the same request changes nothing. */
export async function recordRunnerUsage(db: Db, r: RunnerUsageRecord): Promise<void> {
  await db.$client
    .prepare(
      `INSERT OR IGNORE INTO runner_usage
         (run_id, kind, submission_id, agent_id, challenge_id, runner_ms, recorded_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
    )
    .bind(
      r.runId,
      r.kind,
      r.submissionId,
      r.agentId,
      r.challengeId,
      Math.max(0, Math.round(r.runnerMs)),
      r.recordedAt,
    )
    .run();
}

/**
 * When an agent that has spent at least `ceilingMs` of runner time in the window ending at
 * `now` may spend again: the moment enough of its oldest runs leave the window for the rest
 * to fall below the ceiling. Null when it is already below.
 */
export async function findRunnerRetryAt(
  db: Db,
  agentId: string,
  now: number,
  windowMs: number,
  ceilingMs: number,
): Promise<number | null> {
  // Running totals from the oldest run: once the runs after a row sum to less than the
  // ceiling, that row's leaving the window is what frees the agent.
  const row = await db.$client
    .prepare(
      `SELECT recorded_at, total FROM (
         SELECT recorded_at,
                SUM(runner_ms) OVER (ORDER BY recorded_at, run_id, kind
                  ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
                SUM(runner_ms) OVER () AS total
           FROM runner_usage WHERE agent_id = ?1 AND recorded_at > ?2)
       WHERE total - running < ?3
       ORDER BY recorded_at LIMIT 1`,
    )
    .bind(agentId, now - windowMs, ceilingMs)
    .first<{ recorded_at: number; total: number }>();
  if (!row || row.total < ceilingMs) return null;
  return row.recorded_at + windowMs;
}

/** An agent's runner time since `since` (exclusive), in ms. */
export async function sumRunnerMs(db: Db, agentId: string, since: number): Promise<number> {
  const row = await db.$client
    .prepare(
      "SELECT COALESCE(SUM(runner_ms), 0) AS ms FROM runner_usage WHERE agent_id = ?1 AND recorded_at > ?2",
    )
    .bind(agentId, since)
    .first<{ ms: number }>();
  return row?.ms ?? 0;
}

/** An agent's runner time per challenge since `since`: what operators read. */
export interface RunnerUsageByChallenge {
  challengeId: string;
  runs: number;
  runnerMs: number;
  lastRecordedAt: number;
}

/** Sums an agent's runner time since `since` by challenge, largest first. */
export async function summarizeRunnerUsage(
  db: Db,
  agentId: string,
  since: number,
): Promise<RunnerUsageByChallenge[]> {
  const { results } = await db.$client
    .prepare(
      `SELECT challenge_id, COUNT(*) AS runs, SUM(runner_ms) AS ms, MAX(recorded_at) AS last
         FROM runner_usage WHERE agent_id = ?1 AND recorded_at > ?2
         GROUP BY challenge_id ORDER BY ms DESC, challenge_id`,
    )
    .bind(agentId, since)
    .all<{ challenge_id: string; runs: number; ms: number; last: number }>();
  return results.map((r) => ({
    challengeId: r.challenge_id,
    runs: r.runs,
    runnerMs: r.ms,
    lastRecordedAt: r.last,
  }));
}
