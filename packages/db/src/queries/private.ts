/**
 * @module db/queries/private
 * Public and private boards (docs/design.md §29): the recorded split, full-suite scores, final
 * choices and the private board. Invariants: choices change only while the challenge is
 * published (the guard is in the statement, so a close between check and write wins); the
 * split and the board are written once; each change appends its audit event in the same batch.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../db.ts";
import {
  challengeSplits,
  finalChoices,
  fullScores,
  privateBoards,
  type ChallengeSplitRow,
  type FinalChoiceRow,
  type FullScoreRow,
  type PrivateBoardRow,
} from "../schema-private.ts";
import { prepareAuditEvent } from "./audit.ts";

/** Records a challenge's split once; a repeat (or a later bundle) changes nothing. */
export async function recordSplit(db: Db, row: ChallengeSplitRow): Promise<void> {
  await db.insert(challengeSplits).values(row).onConflictDoNothing();
}

/** A challenge's recorded split, if it has one. */
export async function findSplit(
  db: Db,
  challengeId: string,
): Promise<ChallengeSplitRow | undefined> {
  return db
    .select()
    .from(challengeSplits)
    .where(eq(challengeSplits.challengeId, challengeId))
    .get();
}

/** Writes a submission's full-suite score once (a redelivery keeps the first). */
export async function saveFullScore(db: Db, row: FullScoreRow): Promise<void> {
  await db.insert(fullScores).values(row).onConflictDoNothing();
}

/** Every full-suite score of a challenge. */
export async function listFullScores(db: Db, challengeId: string): Promise<FullScoreRow[]> {
  return db.select().from(fullScores).where(eq(fullScores.challengeId, challengeId)).all();
}

/** One agent's final choices in a challenge (oldest first), or every agent's without `agentId`. */
export async function listFinalChoices(
  db: Db,
  challengeId: string,
  agentId?: string,
): Promise<FinalChoiceRow[]> {
  return db
    .select()
    .from(finalChoices)
    .where(
      agentId === undefined
        ? eq(finalChoices.challengeId, challengeId)
        : and(eq(finalChoices.challengeId, challengeId), eq(finalChoices.agentId, agentId)),
    )
    .orderBy(asc(finalChoices.chosenAt), asc(finalChoices.submissionId))
    .all();
}

/**
 * Replaces an agent's final choices with `submissionIds`, with a `final-chosen` event, in one
 * batch guarded by the challenge still being published. Returns false when it was not (closed
 * meanwhile): nothing changed.
 */
export async function replaceFinalChoices(
  db: Db,
  c: {
    challengeId: string;
    agentId: string;
    submissionIds: readonly string[];
    now: number;
    eventId: string;
  },
): Promise<boolean> {
  const d1 = db.$client;
  const open = "EXISTS (SELECT 1 FROM challenges WHERE id = ?1 AND status = 'published')";
  const results = await d1.batch([
    d1
      .prepare(`DELETE FROM final_choices WHERE challenge_id = ?1 AND agent_id = ?2 AND ${open}`)
      .bind(c.challengeId, c.agentId),
    ...c.submissionIds.map((id) =>
      d1
        .prepare(
          `INSERT INTO final_choices (challenge_id, agent_id, submission_id, chosen_at)
           SELECT ?1, ?2, ?3, ?4 WHERE ${open}`,
        )
        .bind(c.challengeId, c.agentId, id, c.now),
    ),
    prepareAuditEvent(
      d1,
      {
        id: c.eventId,
        challengeId: c.challengeId,
        submissionId: null,
        agentId: c.agentId,
        type: "final-chosen",
        scope: "submission",
        actorKind: "system",
        actorId: "ingest",
        cause: "the agent chose its final submissions",
        before: null,
        after: { submissionIds: c.submissionIds },
        at: c.now,
      },
      "EXISTS (SELECT 1 FROM challenges WHERE id = ?13 AND status = 'published')",
      [c.challengeId],
    ),
  ]);
  return (results.at(-1)?.meta.changes ?? 0) > 0;
}

/** A challenge's private board, once published. */
export async function findPrivateBoard(
  db: Db,
  challengeId: string,
): Promise<PrivateBoardRow | undefined> {
  return db.select().from(privateBoards).where(eq(privateBoards.challengeId, challengeId)).get();
}

/**
 * Publishes a private board once, with its `private-board-published` event (deterministic id),
 * whose actor is the close's (an operator, or the system when a deadline closed it); returns
 * false when it was already published (the first board stands).
 */
export async function publishPrivateBoard(
  db: Db,
  b: {
    challengeId: string;
    entries: unknown[];
    now: number;
    /** Who closed the challenge: the same actor as its `closed` event. */
    actor: { kind: "operator" | "system"; id: string };
    split: unknown;
  },
): Promise<boolean> {
  const d1 = db.$client;
  const [inserted] = await d1.batch([
    d1
      .prepare(
        "INSERT OR IGNORE INTO private_boards (challenge_id, published_at, entries) VALUES (?1, ?2, ?3)",
      )
      .bind(b.challengeId, b.now, JSON.stringify(b.entries)),
    prepareAuditEvent(d1, {
      id: `private-board:${b.challengeId}`,
      challengeId: b.challengeId,
      submissionId: null,
      agentId: null,
      type: "private-board-published",
      scope: "challenge",
      actorKind: b.actor.kind,
      actorId: b.actor.id,
      cause: "the challenge closed: the private board was computed from the final choices",
      before: null,
      after: { entries: b.entries.length, split: b.split },
      at: b.now,
    }),
  ]);
  return (inserted?.meta.changes ?? 0) > 0;
}

/** The R2 key of a submission's full-suite report, or null when it has no full score. */
export async function findFullScoreKey(db: Db, submissionId: string): Promise<string | null> {
  const row = await db
    .select({ reportKey: fullScores.reportKey })
    .from(fullScores)
    .where(eq(fullScores.submissionId, submissionId))
    .get();
  return row?.reportKey ?? null;
}

/** A submission's full-suite score row, or null when it has none. */
export async function findFullScore(db: Db, submissionId: string): Promise<FullScoreRow | null> {
  return (
    (await db.select().from(fullScores).where(eq(fullScores.submissionId, submissionId)).get()) ??
    null
  );
}
