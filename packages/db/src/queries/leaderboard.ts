/**
 * @module db/queries/leaderboard
 * The public leaderboard's reads: agents' display names, a submission's stored score and a
 * challenge's result history (for board rebuilds). Invariants: a stored score is returned only
 * for a `published` or `closed` challenge (drafts are invisible); these functions only read.
 */
import type { ResultRecord } from "@bouts/ranking";
import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db.ts";
import { agents, challenges, submissions } from "../schema.ts";
import { scores } from "../schema-scores.ts";
import { submissionRemovals } from "../schema-audit.ts";

/** An agent's id and display name (untrusted text chosen by operators: escape it to show). */
export interface AgentName {
  id: string;
  name: string;
}

/**
 * The id and name of each given agent that has a row, in one query with one bound parameter;
 * the caller bounds `agentIds` (D1 allows 100 bound parameters per query).
 */
export async function listAgentNames(db: Db, agentIds: readonly string[]): Promise<AgentName[]> {
  if (agentIds.length === 0) return [];
  return (
    db
      .select({ id: agents.id, name: agents.name })
      .from(agents)
      // Raw SQL: the ids travel as one JSON parameter (json_each), which drizzle's inArray
      // cannot express; a list of ids would spend one of D1's 100 bound parameters per id.
      .where(inArray(agents.id, sql`(SELECT value FROM json_each(${JSON.stringify(agentIds)}))`))
      .all()
  );
}

/** A stored score with the owner of its submission and the times its board ranks by. */
export interface PublicScoreRow {
  submissionId: string;
  agentId: string;
  challengeId: string;
  breakdown: string;
  finalUnrounded: string;
  finalRounded: number;
  profile: string;
  profileVersion: number;
  iteration: number;
  enteredAt: number;
  submittedAt: number;
  scoredAt: number;
  /** What the run spent (JSON text, `RunUsageSchema`), or null without a trace. */
  usage: string | null;
}

/**
 * The stored score of a submission on a published or closed challenge, with its owner and
 * challenge read from the submission; null when there is none (or the challenge is a draft).
 */
export async function findPublicScore(
  db: Db,
  submissionId: string,
): Promise<PublicScoreRow | null> {
  const row = await db
    .select({
      submissionId: scores.submissionId,
      agentId: submissions.agentId,
      challengeId: submissions.challengeId,
      breakdown: scores.breakdown,
      finalUnrounded: scores.finalUnrounded,
      finalRounded: scores.finalRounded,
      profile: scores.profile,
      profileVersion: scores.profileVersion,
      iteration: scores.iteration,
      enteredAt: scores.enteredAt,
      submittedAt: scores.submittedAt,
      scoredAt: scores.scoredAt,
      usage: scores.usage,
    })
    .from(scores)
    .innerJoin(submissions, eq(submissions.id, scores.submissionId))
    .innerJoin(challenges, eq(challenges.id, submissions.challengeId))
    .where(
      and(
        eq(scores.submissionId, submissionId),
        inArray(challenges.status, ["published", "closed"]),
      ),
    )
    .get();
  return row ?? null;
}

/** One scored submission of a challenge, as a board rebuild takes it: a ranking record. */
export type ResultHistoryRow = ResultRecord;

/**
 * Every scored submission of a challenge that ranks, from its `scores` rows (unordered): only
 * scores computed on the challenge's live version count (a promotion rescored the ones that
 * do; docs/design.md §30); a submission an operator removed (`submission_removals`) keeps its score but is left out, and
 * so are the challenge's baselines (`listBaselineResults`), which never rank.
 */
export async function listResultHistory(db: Db, challengeId: string): Promise<ResultHistoryRow[]> {
  return (
    db
      .select({
        submissionId: scores.submissionId,
        agentId: scores.agentId,
        score: scores.finalRounded,
        unrounded: scores.finalUnrounded,
        iteration: scores.iteration,
        enteredAt: scores.enteredAt,
        submittedAt: scores.submittedAt,
        scoredAt: scores.scoredAt,
      })
      .from(scores)
      // Only scores of the challenge's live version rank (docs/design.md §30).
      .innerJoin(
        challenges,
        and(eq(challenges.id, scores.challengeId), eq(challenges.version, scores.challengeVersion)),
      )
      .leftJoin(submissionRemovals, eq(submissionRemovals.submissionId, scores.submissionId))
      .innerJoin(agents, eq(agents.id, scores.agentId))
      .where(
        and(
          eq(scores.challengeId, challengeId),
          isNull(submissionRemovals.submissionId),
          isNull(agents.baselineKind),
        ),
      )
      .all()
  );
}

/**
 * One page of a challenge's stored breakdowns (JSON text, unchecked: `parseStoredBreakdown` of
 * @bouts/contracts reads them), in submission id order after `after` (null: from the first).
 * Paged because a breakdown is kilobytes and a challenge may hold thousands of scores.
 */
export async function listStoredBreakdowns(
  db: Db,
  challengeId: string,
  after: string | null,
  limit: number,
): Promise<{ submissionId: string; breakdown: string }[]> {
  return db
    .select({ submissionId: scores.submissionId, breakdown: scores.breakdown })
    .from(scores)
    .where(
      and(
        eq(scores.challengeId, challengeId),
        after === null ? undefined : gt(scores.submissionId, after),
      ),
    )
    .orderBy(asc(scores.submissionId))
    .limit(limit)
    .all();
}

/** The stored usage (JSON text, unchecked) of every scored submission of a challenge with one. */
export async function listScoreUsage(
  db: Db,
  challengeId: string,
): Promise<{ submissionId: string; usage: string }[]> {
  const rows = await db
    .select({ submissionId: scores.submissionId, usage: scores.usage })
    .from(scores)
    .where(eq(scores.challengeId, challengeId))
    .all();
  return rows.flatMap((r) =>
    r.usage === null ? [] : [{ submissionId: r.submissionId, usage: r.usage }],
  );
}
