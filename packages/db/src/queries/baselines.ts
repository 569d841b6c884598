/**
 * @module db/queries/baselines
 * A challenge's baselines: the submissions its bundle ships (the reference solution, a stub …),
 * each owned by an `agents` row with `baseline_kind` set, which only the publish step writes.
 * Invariants: ids are deterministic per challenge and baseline, and every insert is
 * `INSERT OR IGNORE`, so a repeated publish step queues nothing twice; a baseline never ranks
 * (`listResultHistory` leaves them out; `listBaselineResults` reads them apart).
 */
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Db } from "../db.ts";
import { agents, challenges } from "../schema.ts";
import { scores } from "../schema-scores.ts";
import { submissionRemovals } from "../schema-audit.ts";

/** The kinds of baseline (the manifest's `baselines[].kind`). */
export type BaselineKind = "reference" | "stub" | "other";

/** A baseline submission to queue. */
export interface BaselineSubmissionInput {
  challengeId: string;
  operatorId: string;
  baselineId: string;
  label: string;
  kind: BaselineKind;
  artifact: { sha256: string; key: string; size: number };
  now: number;
}

/** The agent and submission ids of a challenge's baseline (deterministic). */
export function baselineIds(challengeId: string, baselineId: string) {
  const agentId = `baseline-${challengeId}-${baselineId}`;
  return { agentId, submissionId: `${agentId}-1` };
}

/**
 * Writes a baseline's agent, entry and queued submission in one batch; returns whether the
 * submission is new (false when an earlier publish step already queued it).
 */
export async function insertBaselineSubmission(
  db: Db,
  b: BaselineSubmissionInput,
): Promise<{ agentId: string; submissionId: string; created: boolean }> {
  const { agentId, submissionId } = baselineIds(b.challengeId, b.baselineId);
  const d1 = db.$client;
  const res = await d1.batch([
    d1
      .prepare(
        `INSERT OR IGNORE INTO agents (id, name, operator_id, created_at, baseline_kind, baseline_of)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
      )
      .bind(agentId, b.label, b.operatorId, b.now, b.kind, b.challengeId),
    d1
      .prepare(
        "INSERT OR IGNORE INTO entries (agent_id, challenge_id, entered_at) VALUES (?1, ?2, ?3)",
      )
      .bind(agentId, b.challengeId, b.now),
    d1
      .prepare(
        `INSERT OR IGNORE INTO submissions (id, agent_id, challenge_id, iteration, artifact_sha256, artifact_key,
           artifact_size, artifact_type, status, received_at, queued_at)
         VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, 'tar.gz', 'queued', ?7, ?7)`,
      )
      .bind(
        submissionId,
        agentId,
        b.challengeId,
        b.artifact.sha256,
        b.artifact.key,
        b.artifact.size,
        b.now,
      ),
  ]);
  return { agentId, submissionId, created: (res[2]?.meta.changes ?? 0) > 0 };
}

/** A scored baseline of a challenge, as the board shows it. */
export interface BaselineResultRow {
  agentId: string;
  submissionId: string;
  label: string;
  kind: BaselineKind;
  score: number;
  unrounded: string;
  scoredAt: number;
}

/** Every scored baseline of a challenge that an operator did not remove (unordered). */
export async function listBaselineResults(
  db: Db,
  challengeId: string,
): Promise<BaselineResultRow[]> {
  const rows = await db
    .select({
      agentId: agents.id,
      submissionId: scores.submissionId,
      label: agents.name,
      kind: agents.baselineKind,
      score: scores.finalRounded,
      unrounded: scores.finalUnrounded,
      scoredAt: scores.scoredAt,
    })
    .from(scores)
    .innerJoin(
      challenges,
      and(eq(challenges.id, scores.challengeId), eq(challenges.version, scores.challengeVersion)),
    )
    .innerJoin(agents, eq(agents.id, scores.agentId))
    .leftJoin(submissionRemovals, eq(submissionRemovals.submissionId, scores.submissionId))
    .where(
      and(
        eq(scores.challengeId, challengeId),
        isNotNull(agents.baselineKind),
        isNull(submissionRemovals.submissionId),
      ),
    )
    .all();
  return rows.map((r) => ({ ...r, kind: r.kind ?? "other" }));
}
