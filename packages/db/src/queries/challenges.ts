/**
 * @module db/queries/challenges
 * Challenges and entries. Invariant: status moves draft → published → closed only, and each
 * transition is a guarded UPDATE (the WHERE names the expected status), so two concurrent
 * operators cannot both win a transition.
 */
import { and, asc, eq, inArray, lte, or } from "drizzle-orm";
import type { Db } from "../db.ts";
import {
  challenges,
  entries,
  type ChallengeRow,
  type ChallengeStatus,
  type EntryRow,
} from "../schema.ts";

/** Inserts a challenge. */
export async function insertChallenge(db: Db, row: ChallengeRow): Promise<void> {
  await db.insert(challenges).values(row);
}

/** Finds a challenge by id or by slug. */
export async function findChallenge(db: Db, idOrSlug: string): Promise<ChallengeRow | undefined> {
  return db
    .select()
    .from(challenges)
    .where(or(eq(challenges.id, idOrSlug), eq(challenges.slug, idOrSlug)))
    .get();
}

/** Lists challenges in the given statuses, oldest first. */
export async function listChallenges(
  db: Db,
  statuses: readonly ChallengeStatus[],
): Promise<ChallengeRow[]> {
  return db
    .select()
    .from(challenges)
    .where(inArray(challenges.status, [...statuses]))
    .orderBy(asc(challenges.createdAt))
    .all();
}

/** Fields an update may change; status changes go through the transition functions. */
export type ChallengePatch = Partial<
  Pick<
    ChallengeRow,
    | "title"
    | "description"
    | "profile"
    | "family"
    | "customWeights"
    | "rankingMode"
    | "maxIterations"
    | "limits"
    | "closesAt"
    | "bundleKey"
    | "bundleSha256"
    | "bundleManifest"
    | "qaReport"
    | "qaPassed"
  >
>;

/** Applies a patch to a challenge that is still a draft; returns false otherwise. */
export async function updateDraftChallenge(
  db: Db,
  id: string,
  patch: ChallengePatch,
  now: number,
): Promise<boolean> {
  const res = await db
    .update(challenges)
    .set({ ...patch, updatedAt: now })
    .where(and(eq(challenges.id, id), eq(challenges.status, "draft")));
  return res.meta.changes > 0;
}

/**
 * Undo of a bundle upload whose object could not be stored: puts the draft's previous bundle
 * fields back, but only while the row still names `uploadedKey` (a later upload wins).
 */
export async function revertDraftBundle(
  db: Db,
  id: string,
  uploadedKey: string,
  previous: Pick<
    ChallengeRow,
    "bundleKey" | "bundleSha256" | "bundleManifest" | "qaReport" | "qaPassed"
  >,
  now: number,
): Promise<boolean> {
  const res = await db
    .update(challenges)
    .set({ ...previous, updatedAt: now })
    .where(
      and(
        eq(challenges.id, id),
        eq(challenges.status, "draft"),
        eq(challenges.bundleKey, uploadedKey),
      ),
    );
  return res.meta.changes > 0;
}

/**
 * Publishes a draft whose QA passed for the bundle it was run on; returns false when the
 * challenge is no longer a draft or its bundle changed since that QA.
 */
export async function publishChallenge(
  db: Db,
  id: string,
  bundleSha256: string,
  now: number,
): Promise<boolean> {
  const res = await db
    .update(challenges)
    .set({ status: "published", publishedAt: now, updatedAt: now })
    .where(
      and(
        eq(challenges.id, id),
        eq(challenges.status, "draft"),
        eq(challenges.bundleSha256, bundleSha256),
        eq(challenges.qaPassed, true),
      ),
    );
  return res.meta.changes > 0;
}

/** Closes a published challenge; returns false when it was not published. */
export async function closeChallenge(db: Db, id: string, now: number): Promise<boolean> {
  const res = await db
    .update(challenges)
    .set({ status: "closed", closedAt: now, updatedAt: now })
    .where(and(eq(challenges.id, id), eq(challenges.status, "published")));
  return res.meta.changes > 0;
}

/**
 * Enters an agent into a challenge once: the first call records `enteredAt`, later calls
 * return the original entry. Returns the entry and whether this call created it.
 */
export async function enterChallenge(
  db: Db,
  row: EntryRow,
): Promise<{ entry: EntryRow; created: boolean }> {
  const res = await db.insert(entries).values(row).onConflictDoNothing();
  const entry = await findEntry(db, row.agentId, row.challengeId);
  if (!entry) throw new Error("entry vanished right after insert");
  return { entry, created: res.meta.changes > 0 };
}

/** Finds an agent's entry into a challenge. */
export async function findEntry(
  db: Db,
  agentId: string,
  challengeId: string,
): Promise<EntryRow | undefined> {
  return db
    .select()
    .from(entries)
    .where(and(eq(entries.agentId, agentId), eq(entries.challengeId, challengeId)))
    .get();
}

/** Published challenges whose deadline has passed at `now`, oldest deadline first. */
export async function listDueChallenges(
  db: Db,
  now: number,
  limit: number,
): Promise<ChallengeRow[]> {
  return db
    .select()
    .from(challenges)
    .where(and(eq(challenges.status, "published"), lte(challenges.closesAt, now)))
    .orderBy(asc(challenges.closesAt))
    .limit(limit)
    .all();
}

/**
 * Sets a draft's or a published challenge's deadline (null clears it); false once it is closed
 * or its deadline has passed (`now`).
 */
export async function setChallengeDeadline(
  db: Db,
  id: string,
  closesAt: number | null,
  now: number,
): Promise<boolean> {
  const res = await db.$client
    .prepare(
      `UPDATE challenges SET closes_at = ?2, updated_at = ?3
       WHERE id = ?1 AND status IN ('draft', 'published') AND (closes_at IS NULL OR closes_at > ?3)`,
    )
    .bind(id, closesAt, now)
    .run();
  return res.meta.changes > 0;
}
