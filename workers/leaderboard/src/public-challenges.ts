/**
 * @module leaderboard/public-challenges
 * The public views of challenges, for `GET /v1/challenges` and `GET /v1/challenges/{id}`
 * without a key (the platform serves both views of those two operations). Invariants: drafts
 * are invisible (404); no view carries a bundle, a manifest test or a QA report; one
 * challenge is read through the colo cache, like the boards.
 */
import type { Context } from "hono";
import { createDb } from "@bouts/db";
import { resolveChallenge } from "./reads.ts";
import { listPublicChallenges, type PublicChallenge } from "./store.ts";
import type { LeaderboardEnv } from "./types.ts";

export { CHALLENGE_CACHE_CONTROL as PUBLIC_CHALLENGE_CACHE_CONTROL } from "./cache.ts";

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A public challenge on the wire, with the links of its leaderboard. */
export function publicChallengeToWire(ch: PublicChallenge) {
  const base = `/v1/challenges/${ch.id}/leaderboard`;
  return {
    ...ch,
    publishedAt: isoOrNull(ch.publishedAt),
    closedAt: isoOrNull(ch.closedAt),
    closesAt: isoOrNull(ch.closesAt),
    links: { leaderboard: base, websocket: `${base}/ws` },
  };
}

/** The public challenges in one status (published by default), oldest first. */
export async function listPublicChallengeViews(
  c: Context<LeaderboardEnv>,
  status: "published" | "closed" = "published",
) {
  const rows = await listPublicChallenges(createDb(c.env.DB), status);
  return { challenges: rows.map(publicChallengeToWire) };
}

/** One published or closed challenge by id or slug (cached); 404 otherwise. */
export async function readPublicChallengeView(c: Context<LeaderboardEnv>, idOrSlug: string) {
  return publicChallengeToWire(await resolveChallenge(c, idOrSlug));
}
