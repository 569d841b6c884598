/**
 * @module ingest/access
 * What a caller may see. Invariant: a resource the caller may not see is reported exactly
 * like a missing one (404), so ids cannot be probed.
 */
import { findChallenge, type ChallengeRow, type Db } from "@bouts/db";
import { fail } from "./errors.ts";
import type { Principal } from "./types.ts";

/** Loads a challenge the caller may see: operators see all, agents published and closed. */
export async function visibleChallenge(
  db: Db,
  p: Principal,
  idOrSlug: string,
): Promise<ChallengeRow> {
  const ch = await findChallenge(db, idOrSlug);
  if (!ch || (p.role === "agent" && ch.status === "draft")) {
    fail({ reason: "not-found", resource: "challenge" });
  }
  return ch;
}
