/**
 * @module leaderboard/store
 * D1 reads of the public API: public challenges, a submission's stored score, and a
 * challenge's whole result history (for rebuilds). Invariants: only `published` and `closed`
 * challenges are ever returned; the `scores` table belongs to the score worker and may not
 * exist yet, which is an expected failure (`scores-missing`), never a 500.
 */
import { ChallengeManifestSchema } from "@bouts/contracts";
import { findChallenge, listChallenges, type ChallengeRow, type Db } from "@bouts/db";
import type { RebuildRow } from "./rpc.ts";

/** A stored score with the owner of its submission. */
export interface StoredScore {
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
}

/** Why a score read failed. */
export type StoreError = { reason: "scores-missing" };

/** The public fields of a challenge (no bundle, manifest tests or QA report). */
export interface PublicChallenge {
  id: string;
  slug: string;
  title: string;
  description: string;
  status: "published" | "closed";
  profile: string;
  family: string;
  rankingMode: "latest" | "best";
  maxIterations: number;
  runtime: string | null;
  deliverables: { path: string; description: string; required: boolean }[];
  publishedAt: number | null;
  closedAt: number | null;
}

function toPublic(row: ChallengeRow): PublicChallenge | null {
  if (row.status !== "published" && row.status !== "closed") return null;
  let manifest = null;
  if (row.bundleManifest) {
    try {
      const parsed = ChallengeManifestSchema.safeParse(JSON.parse(row.bundleManifest));
      manifest = parsed.success ? parsed.data : null;
    } catch {
      manifest = null;
    }
  }
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    status: row.status,
    profile: row.profile,
    family: row.family,
    rankingMode: row.rankingMode,
    maxIterations: row.maxIterations,
    runtime: manifest?.runtime ?? null,
    // An allow-list: the manifest's tests never leave this function.
    deliverables: (manifest?.deliverables ?? []).map((d) => ({
      path: d.path,
      description: d.description,
      required: d.required,
    })),
    publishedAt: row.publishedAt,
    closedAt: row.closedAt,
  };
}

/** A published or closed challenge by id or slug, or null (drafts are invisible). */
export async function findPublicChallenge(
  db: Db,
  idOrSlug: string,
): Promise<PublicChallenge | null> {
  const row = await findChallenge(db, idOrSlug);
  return row ? toPublic(row) : null;
}

/** Challenges in one public status, oldest first. */
export async function listPublicChallenges(
  db: Db,
  status: "published" | "closed",
): Promise<PublicChallenge[]> {
  const rows = await listChallenges(db, [status]);
  return rows.map(toPublic).filter((c): c is PublicChallenge => c !== null);
}

/**
 * The display names of the given agents (at most 100 ids, one query); ids without a row are
 * absent from the map. Names are untrusted text chosen by operators: escape them to show.
 */
export async function findAgentNames(
  d1: D1Database,
  agentIds: readonly string[],
): Promise<Map<string, string>> {
  const ids = [...new Set(agentIds)].slice(0, 100);
  if (ids.length === 0) return new Map();
  const { results } = await d1
    .prepare("SELECT id, name FROM agents WHERE id IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify(ids))
    .all<{ id: string; name: string }>();
  return new Map(results.map((r) => [r.id, r.name]));
}

function isMissingTable(err: unknown): boolean {
  return /no such table/i.test(String(err));
}

type ScoreRow = {
  submission_id: string;
  agent_id: string;
  challenge_id: string;
  breakdown: string;
  final_unrounded: string;
  final_rounded: number;
  profile: string;
  profile_version: number;
  iteration: number;
  entered_at: number;
  submitted_at: number;
  scored_at: number;
};

/**
 * The stored score of a submission on a public challenge, or null; `scores-missing` while the
 * score worker's table does not exist.
 */
export async function findStoredScore(
  d1: D1Database,
  submissionId: string,
): Promise<{ ok: true; value: StoredScore | null } | { ok: false; error: StoreError }> {
  let row: ScoreRow | null;
  try {
    row = await d1
      .prepare(
        `SELECT s.submission_id, sub.agent_id, sub.challenge_id, s.breakdown, s.final_unrounded,
                s.final_rounded, s.profile, s.profile_version, s.iteration, s.entered_at,
                s.submitted_at, s.scored_at
         FROM scores s
         JOIN submissions sub ON sub.id = s.submission_id
         JOIN challenges c ON c.id = sub.challenge_id
         WHERE s.submission_id = ? AND c.status IN ('published', 'closed')`,
      )
      .bind(submissionId)
      .first<ScoreRow>();
  } catch (err) {
    if (isMissingTable(err)) return { ok: false, error: { reason: "scores-missing" } };
    throw err;
  }
  if (!row) return { ok: true, value: null };
  return {
    ok: true,
    value: {
      submissionId: row.submission_id,
      agentId: row.agent_id,
      challengeId: row.challenge_id,
      breakdown: row.breakdown,
      finalUnrounded: row.final_unrounded,
      finalRounded: row.final_rounded,
      profile: row.profile,
      profileVersion: row.profile_version,
      iteration: row.iteration,
      enteredAt: row.entered_at,
      submittedAt: row.submitted_at,
      scoredAt: row.scored_at,
    },
  };
}

/**
 * Every scored submission of a challenge, as `rebuild` rows, from the score worker's `scores`
 * rows (which carry the iteration, entry and submission times the board ranks by).
 */
export async function readResultHistory(
  d1: D1Database,
  challengeId: string,
): Promise<{ ok: true; value: RebuildRow[] } | { ok: false; error: StoreError }> {
  try {
    const { results } = await d1
      .prepare(
        `SELECT submission_id AS submissionId, agent_id AS agentId, final_rounded AS score,
                final_unrounded AS unrounded, iteration, entered_at AS enteredAt,
                submitted_at AS submittedAt, scored_at AS scoredAt
         FROM scores WHERE challenge_id = ?`,
      )
      .bind(challengeId)
      .all<RebuildRow>();
    return { ok: true, value: results };
  } catch (err) {
    if (isMissingTable(err)) return { ok: false, error: { reason: "scores-missing" } };
    throw err;
  }
}
