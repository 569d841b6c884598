/**
 * @module ingest/deadline
 * A challenge's deadline (`challenges.closes_at`): past it, no entry, submission or final choice
 * is taken, whether or not the sweep has closed it yet; the ingest sweep (cron) closes each
 * published challenge whose deadline passed as the operator's close would (status, `closed`
 * event with the system as actor, private board). Invariants: the refusal needs no sweep; the
 * close is idempotent (`closeChallenge` moves only a published challenge; the event and the
 * private board are written once).
 */
import { closeChallenge, listDueChallenges, type ChallengeRow, type Db } from "@bouts/db";
import { fail } from "./errors.ts";
import { recordClose } from "./private-board.ts";

/** Whether the challenge's deadline has passed at `now`. */
export const pastDeadline = (ch: Pick<ChallengeRow, "closesAt">, now: number): boolean =>
  ch.closesAt !== null && ch.closesAt <= now;

/** Answers 409 when the deadline has passed: `what` names the refused action. */
export function refuseAfterDeadline(ch: ChallengeRow, now: number, what: string): void {
  if (pastDeadline(ch, now))
    fail({
      reason: "conflict",
      detail: `The challenge's deadline passed at ${new Date(ch.closesAt!).toISOString()}; it takes no ${what}.`,
    });
}

/** Refuses a deadline that is not in the future (422). */
export function checkDeadline(closesAt: string | null | undefined, now: number): number | null {
  if (closesAt === undefined || closesAt === null) return null;
  const ms = Date.parse(closesAt);
  if (!(ms > now))
    fail({ reason: "unprocessable", detail: `The deadline ${closesAt} is not in the future.` });
  return ms;
}

/** Closes every published challenge whose deadline has passed; returns how many it closed. */
export async function closeDueChallenges(db: Db, now: number, limit = 100): Promise<number> {
  let closed = 0;
  for (const ch of await listDueChallenges(db, now, limit)) {
    if (await closeChallenge(db, ch.id, now)) closed++;
    await recordClose(db, ch, { kind: "system", id: "deadline" }, now);
  }
  return closed;
}
