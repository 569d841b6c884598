/**
 * @module ingest/private-board
 * Public and private boards on the write side (docs/design.md §29): the split recorded at
 * publish, agents' final choices, and the private board computed and published at close.
 * Invariants: choices are validated here (own, same challenge, scored, at most N, distinct) and
 * written only while the challenge is published (the guard is in the batch); the board is
 * computed from D1 alone and published once, so a repeated close changes nothing.
 */
import { resolveManifestSplit, type ChallengeManifest } from "@bouts/contracts";
import {
  appendAuditEvent,
  findPrivateBoard,
  findScore,
  findSplit,
  findSubmission,
  listFinalChoices,
  listFullScores,
  listResultHistory,
  publishPrivateBoard,
  recordSplit,
  replaceFinalChoices,
  type ChallengeRow,
  type Db,
} from "@bouts/db";
import { computePrivateBoard, openingOf, type FullScore } from "@bouts/ranking";
import { fail } from "./errors.ts";

/** How many final choices a challenge allows when its manifest does not say (design.md §29). */
export const DEFAULT_FINAL_CHOICES = 2;

/** Records the manifest's split at publish (seed and the drawn assignment); once per challenge. */
export async function recordManifestSplit(
  db: Db,
  ch: ChallengeRow,
  manifest: ChallengeManifest,
  now: number,
): Promise<void> {
  const split = resolveManifestSplit(manifest);
  if (!split || !ch.bundleSha256) return;
  await recordSplit(db, {
    challengeId: ch.id,
    method: split.method,
    seed: split.seed,
    privatePercent: split.privatePercent,
    privateIds: JSON.stringify(split.privateIds),
    finalChoices: manifest.split?.finalChoices ?? DEFAULT_FINAL_CHOICES,
    bundleSha256: ch.bundleSha256,
    recordedAt: now,
  });
}

/** How many final choices the challenge allows. */
export async function resolveFinalChoiceLimit(db: Db, challengeId: string): Promise<number> {
  return (await findSplit(db, challengeId))?.finalChoices ?? DEFAULT_FINAL_CHOICES;
}

/**
 * Replaces the agent's final choices after checking each one; answers a problem for the first
 * refusal. An empty list clears them (the latest scored submission then counts).
 */
export async function chooseFinalSubmissions(
  db: Db,
  ch: ChallengeRow,
  agentId: string,
  submissionIds: readonly string[],
  now: number,
): Promise<string[]> {
  if (ch.status !== "published" || (ch.closesAt !== null && ch.closesAt <= now))
    fail({
      reason: "conflict",
      detail: `The challenge is ${ch.status === "published" ? "past its deadline" : ch.status}; final choices can change only while it is open.`,
    });
  const limit = await resolveFinalChoiceLimit(db, ch.id);
  const ids = [...new Set(submissionIds)];
  if (ids.length !== submissionIds.length)
    fail({ reason: "unprocessable", detail: "A submission is listed twice." });
  if (ids.length > limit)
    fail({
      reason: "unprocessable",
      detail: `This challenge allows at most ${limit} final choices; ${ids.length} were given.`,
    });
  for (const id of ids) {
    const s = await findSubmission(db, id);
    // Another agent's submission is indistinguishable from a missing one: 404, as for every
    // other id the caller does not own.
    if (!s || s.agentId !== agentId) fail({ reason: "not-found", resource: "submission" });
    if (s.challengeId !== ch.id)
      fail({
        reason: "unprocessable",
        detail: `Submission ${id} belongs to another challenge.`,
      });
    if (s.status !== "scored")
      fail({
        reason: "unprocessable",
        detail: `Submission ${id} is ${s.status}; only a scored submission can be a final choice.`,
      });
    // A score a promotion left on an older challenge version is on no board (§30).
    const score = await findScore(db, id);
    if (score && score.challengeVersion !== ch.version)
      fail({
        reason: "unprocessable",
        detail: `Submission ${id} was scored on challenge version ${score.challengeVersion}; version ${ch.version} is live and it was not rescored on it.`,
      });
  }
  const written = await replaceFinalChoices(db, {
    challengeId: ch.id,
    agentId,
    submissionIds: ids,
    now,
    eventId: `final-chosen:${ch.id}:${agentId}:${now}:${crypto.randomUUID()}`,
  });
  if (!written)
    fail({
      reason: "conflict",
      detail: "The challenge closed; final choices can no longer change.",
    });
  return ids;
}

/**
 * Computes and publishes the private board of a closed challenge with a split, once; a
 * challenge without a split has none. Returns whether this call published it.
 */
export async function publishBoardAtClose(
  db: Db,
  ch: ChallengeRow,
  actor: { kind: "operator" | "system"; id: string },
  now: number,
): Promise<boolean> {
  const split = await findSplit(db, ch.id);
  if (!split || (await findPrivateBoard(db, ch.id))) return false;
  const [results, fulls, choices] = await Promise.all([
    listResultHistory(db, ch.id),
    listFullScores(db, ch.id),
    listFinalChoices(db, ch.id),
  ]);
  const full = new Map<string, FullScore>(
    fulls.map((f) => [
      f.submissionId,
      {
        score: f.finalRounded,
        unrounded: f.finalUnrounded,
        interval:
          f.intervalLow === null || f.intervalHigh === null
            ? null
            : { low: f.intervalLow, high: f.intervalHigh },
      },
    ]),
  );
  const chosen = new Map<string, Set<string>>();
  for (const c of choices)
    chosen.set(c.agentId, (chosen.get(c.agentId) ?? new Set()).add(c.submissionId));
  const entries = computePrivateBoard(results, full, chosen, ch.rankingMode, openingOf(ch));
  return publishPrivateBoard(db, {
    challengeId: ch.id,
    entries,
    now,
    actor,
    split: {
      method: split.method,
      seed: split.seed,
      privateIds: JSON.parse(split.privateIds) as unknown,
    },
  });
}

/**
 * What follows a close, each step once however often it is repeated: the `closed` audit event
 * (deterministic id) and the private board of a challenge with a split.
 */
export async function recordClose(
  db: Db,
  ch: ChallengeRow,
  actor: { kind: "operator" | "system"; id: string },
  now: number,
): Promise<void> {
  await appendAuditEvent(db, {
    id: `closed:${ch.id}`,
    challengeId: ch.id,
    submissionId: null,
    agentId: null,
    type: "closed",
    scope: "challenge",
    actorKind: actor.kind,
    actorId: actor.id,
    cause:
      actor.kind === "operator"
        ? "the operator closed the challenge"
        : `the challenge's deadline passed (${ch.closesAt === null ? "none" : new Date(ch.closesAt).toISOString()})`,
    before: { status: ch.status },
    after: { status: "closed" },
    at: now,
  });
  await publishBoardAtClose(db, ch, actor, now);
}
