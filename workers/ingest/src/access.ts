/**
 * @module ingest/access
 * What a caller may see. Invariants: a resource the caller may not see is reported exactly
 * like a missing one (404), so ids cannot be probed; an operator owns the challenges it
 * created (full view, changes, versions: `ownedChallenge` is the one owner check) and sees
 * other operators' challenges only once published, and then as agents do.
 */
import {
  findChallenge,
  findVersion,
  type ChallengeRow,
  type ChallengeVersionRow,
  type Db,
} from "@bouts/db";
import { fail } from "./errors.ts";
import type { Principal } from "./types.ts";

/** Whether the caller owns the challenge (its creating operator). */
export function ownsChallenge(p: Principal, ch: ChallengeRow): boolean {
  return p.role === "operator" && ch.createdBy === p.operatorId;
}

/** Whether the caller may see the challenge at all: its owner, or anyone once published. */
export function canSeeChallenge(p: Principal, ch: ChallengeRow): boolean {
  return ownsChallenge(p, ch) || ch.status !== "draft";
}

/** Loads a challenge the caller may see, or answers 404. */
export async function visibleChallenge(
  db: Db,
  p: Principal,
  idOrSlug: string,
): Promise<ChallengeRow> {
  const ch = await findChallenge(db, idOrSlug);
  if (!ch || !canSeeChallenge(p, ch)) fail({ reason: "not-found", resource: "challenge" });
  return ch;
}

/** Loads a challenge the calling operator owns, or answers 404. */
export async function ownedChallenge(
  db: Db,
  p: Principal,
  idOrSlug: string,
): Promise<ChallengeRow> {
  const ch = await findChallenge(db, idOrSlug);
  if (!ch || !ownsChallenge(p, ch)) fail({ reason: "not-found", resource: "challenge" });
  return ch;
}

/**
 * Loads a version of a challenge the calling operator owns, or answers 404: the challenge's
 * (another operator's looks exactly like a missing one), then the version's.
 */
export async function ownedVersion(
  db: Db,
  p: Principal,
  idOrSlug: string,
  version: number,
): Promise<{ challenge: ChallengeRow; version: ChallengeVersionRow }> {
  const challenge = await ownedChallenge(db, p, idOrSlug);
  const row = await findVersion(db, challenge.id, version);
  if (!row) fail({ reason: "not-found", resource: "challenge version" });
  return { challenge, version: row };
}
