/**
 * @module leaderboard/store
 * D1 reads of the public API: public challenges, agents' names, a submission's stored score and
 * the price table in force, through the query functions of `@bouts/db`.
 * Invariants: only `published` and `closed` challenges are ever returned.
 */
import { ChallengeManifestSchema, PriceTableSchema, type PriceTableWire } from "@bouts/contracts";
import {
  createDb,
  findChallenge,
  findCurrentPriceTable,
  findPublicScore,
  listAgentNames,
  listChallenges,
  type ChallengeRow,
  type Db,
  type PublicScoreRow,
} from "@bouts/db";
import type { RankingMode } from "@bouts/ranking";

/** A stored score with the owner of its submission. */
export type StoredScore = PublicScoreRow;

/** The public fields of a challenge (no bundle, manifest tests or QA report). */
export interface PublicChallenge {
  id: string;
  slug: string;
  title: string;
  description: string;
  status: "published" | "closed";
  profile: string;
  family: string;
  rankingMode: RankingMode;
  maxIterations: number;
  runtime: string | null;
  deliverables: { path: string; description: string; required: boolean }[];
  publishedAt: number | null;
  closedAt: number | null;
  /** The deadline (ms), or null for none. */
  closesAt: number | null;
  /** The live bundle version (1 at publish; a promotion raises it, docs/design.md §30). */
  version: number;
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
    closesAt: row.closesAt,
    version: row.version,
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
  const rows = await listAgentNames(createDb(d1), ids);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The stored score of a submission on a public challenge, or null. */
export async function findStoredScore(
  d1: D1Database,
  submissionId: string,
): Promise<StoredScore | null> {
  return findPublicScore(createDb(d1), submissionId);
}

/** The price table in force as the board takes it, or null when none was ever set. */
export async function findPrices(d1: D1Database): Promise<PriceTableWire | null> {
  const row = await findCurrentPriceTable(createDb(d1));
  if (!row) return null;
  const table = PriceTableSchema.safeParse({
    revision: row.revision,
    asOf: row.asOf,
    models: JSON.parse(row.models) as unknown,
    setAt: new Date(row.setAt).toISOString(),
  });
  if (!table.success) {
    // Written through PriceTableBodySchema: a row that no longer parses is a data fault.
    console.error(`price table revision ${row.revision} does not parse`, table.error);
    return null;
  }
  return table.data;
}
