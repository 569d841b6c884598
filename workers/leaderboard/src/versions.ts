/**
 * @module leaderboard/versions
 * A candidate challenge version's diff report, promotion and discard (docs/design.md §30). The
 * report compares, per agent, its place on the live board with its place on the board the
 * candidate would publish (the rescored submissions with their new scores, ranked by the same
 * rules), and lists every rescored submission with its old and new score and the tests whose
 * verdict changed. Promotion swaps the scores, the version and the split in one D1 batch, then
 * rebuilds the board from D1 in one Durable Object call (readers see the old board or the new
 * one, never a mix) and sends `submission.rescored` to each affected agent. Invariants: a
 * promotion is idempotent — repeating it finishes the rebuild and the events a first call did
 * not (event ids are deterministic); a refused promotion or discard changes nothing.
 */
import {
  eventMessage,
  resolveManifestSplit,
  ChallengeManifestSchema,
  parseJson,
  toBatches,
} from "@bouts/contracts";
import {
  countRescores,
  createDb,
  discardVersion,
  findVersion,
  listAgentNames,
  listBaselineResults,
  listPromotedRescores,
  listRescores,
  listResultsOnVersion,
  promoteVersion,
  type ChallengeRow,
  type ChallengeSplitRow,
  type ChallengeVersionRow,
  type Db,
} from "@bouts/db";
import { compareBoards, rankBoard } from "@bouts/ranking";
import { rebuildAudited } from "./audit.ts";
import { fail } from "./errors.ts";
import type { LeaderboardBindings } from "./types.ts";

/** Most ids one name lookup binds (D1's bound-parameter limit is 100; one JSON parameter). */
const NAME_CHUNK = 500;
/** How many final choices a split allows when its manifest does not say. */
const DEFAULT_FINAL_CHOICES = 2;

/** One test whose verdict changed (as the rescore recorded it). */
interface ChangedTestView {
  suite: string;
  id: string;
  name: string;
  bucket: string;
  before: string | null;
  after: string | null;
}

const scoreView = (score: number | null, unrounded: string | null) =>
  score === null || unrounded === null ? null : { score, unrounded };

/** The diff report of a version: its state, each agent's places and each rescored submission. */
export async function buildDiffReport(db: Db, ch: ChallengeRow, v: ChallengeVersionRow) {
  const [rows, live, baselines] = await Promise.all([
    listRescores(db, ch.id, v.version),
    listResultsOnVersion(db, ch.id, v.baseVersion),
    listBaselineResults(db, ch.id),
  ]);
  const scored = new Map(
    rows.flatMap((r) =>
      r.state === "scored" && r.finalRounded !== null && r.finalUnrounded !== null
        ? [[r.submissionId, { score: r.finalRounded, unrounded: r.finalUnrounded }] as const]
        : [],
    ),
  );
  const places = compareBoards(live, scored, ch.rankingMode);
  const oldScore = new Map(live.map((r) => [r.submissionId, r] as const));
  const baselineIds = new Set(baselines.map((b) => b.agentId));
  const agentIds = [...new Set(rows.map((r) => r.agentId))];
  const names = new Map<string, string>();
  for (let i = 0; i < agentIds.length; i += NAME_CHUNK)
    for (const n of await listAgentNames(db, agentIds.slice(i, i + NAME_CHUNK)))
      names.set(n.id, n.name);
  const submissionOf = (r: (typeof rows)[number]) => {
    const was =
      oldScore.get(r.submissionId) ?? baselines.find((b) => b.submissionId === r.submissionId);
    return {
      submissionId: r.submissionId,
      state: r.state,
      before: was ? { score: was.score, unrounded: was.unrounded } : null,
      after: scoreView(r.finalRounded, r.finalUnrounded),
      error: r.state === "failed" ? r.error : null,
      changedTests: r.changedTests ? (JSON.parse(r.changedTests) as ChangedTestView[]) : [],
    };
  };
  const byAgent = new Map<string, ReturnType<typeof submissionOf>[]>();
  for (const r of rows)
    byAgent.set(r.agentId, [...(byAgent.get(r.agentId) ?? []), submissionOf(r)]);
  return {
    challengeId: ch.id,
    version: v.version,
    baseVersion: v.baseVersion,
    liveVersion: ch.version,
    state: v.state,
    note: v.note,
    rescores: countRescores(rows),
    agents: places
      .filter((p) => !baselineIds.has(p.agentId))
      .map((p) => ({
        agentId: p.agentId,
        name: names.get(p.agentId) ?? p.agentId,
        before: p.before,
        after: p.after,
        rankChange: p.before && p.after ? p.before.rank - p.after.rank : null,
        submissions: byAgent.get(p.agentId) ?? [],
      })),
    baselines: baselines
      .filter((b) => byAgent.has(b.agentId))
      .map((b) => ({ agentId: b.agentId, label: b.label, submissions: byAgent.get(b.agentId)! })),
  };
}

/** The owner operator's version, or 404. */
export async function ownedVersion(db: Db, ch: ChallengeRow, version: number) {
  const v = await findVersion(db, ch.id, version);
  if (!v) fail({ reason: "not-found", resource: "challenge version" });
  return v;
}

/** The split record the promoted version's manifest declares or draws, or null for none. */
function splitOf(v: ChallengeVersionRow, now: number): ChallengeSplitRow | null {
  const manifest = ChallengeManifestSchema.safeParse(parseJson(v.bundleManifest));
  if (!manifest.success) return null;
  const split = resolveManifestSplit(manifest.data);
  if (!split) return null;
  return {
    challengeId: v.challengeId,
    method: split.method,
    seed: split.seed,
    privatePercent: split.privatePercent,
    privateIds: JSON.stringify(split.privateIds),
    finalChoices: manifest.data.split?.finalChoices ?? DEFAULT_FINAL_CHOICES,
    bundleSha256: v.bundleSha256,
    recordedAt: now,
  };
}

/**
 * Promotes a `ready` version (every rescore scored): 409 while rescores are pending or failed,
 * or once the version is discarded or superseded. A repeat on a promoted version finishes its
 * rebuild and events. Returns the report after the promotion.
 */
export async function promote(
  env: LeaderboardBindings,
  ch: ChallengeRow,
  v: ChallengeVersionRow,
  by: { operatorId: string; reason: string },
) {
  const db = createDb(env.DB);
  const finishing = v.state === "promoted" && ch.version === v.version;
  if (!finishing) {
    if (v.state !== "ready") {
      const rows = await listRescores(db, ch.id, v.version);
      const pending = rows.filter((r) => r.state === "queued" || r.state === "running").length;
      fail({
        reason: "conflict",
        detail:
          v.state === "rescoring"
            ? `Version ${v.version} is still rescoring (${pending} of ${rows.length} pending); promote it once it is ready.`
            : `Version ${v.version} is ${v.state}; only a ready version can be promoted.`,
      });
    }
    const failed = (await listRescores(db, ch.id, v.version)).filter((r) => r.state === "failed");
    if (failed.length > 0)
      fail({
        reason: "conflict",
        detail: `${failed.length} rescore(s) of version ${v.version} failed (see the diff report); discard it, or fix the bundle and upload another version.`,
      });
    if (ch.version !== v.baseVersion || ch.status !== "published")
      fail({
        reason: "conflict",
        detail: `The challenge is ${ch.status} on version ${ch.version}; version ${v.version} was rescored against ${v.baseVersion}.`,
      });
    const now = Date.now();
    const decisionId = crypto.randomUUID();
    const promoted = await promoteVersion(db, {
      challengeId: ch.id,
      version: v.version,
      operatorId: by.operatorId,
      reason: by.reason,
      decisionId,
      now,
      split: splitOf(v, now),
      event: {
        id: `promoted:${ch.id}:v${v.version}`,
        challengeId: ch.id,
        submissionId: null,
        agentId: null,
        type: "promoted",
        scope: "challenge",
        actorKind: "operator",
        actorId: by.operatorId,
        cause: by.reason,
        before: { version: v.baseVersion, bundleSha256: ch.bundleSha256 },
        after: { version: v.version, bundleSha256: v.bundleSha256 },
        at: now,
      },
    });
    if (!promoted)
      fail({
        reason: "conflict",
        detail:
          "The version or the challenge changed meanwhile (a live score, a close); read the report and retry.",
      });
  }
  // The board, rebuilt from D1 in one call: its readers see the old board or the new one.
  const live = { ...ch, version: v.version };
  await rebuildAudited(env, live, {
    operatorId: by.operatorId,
    cause: `version ${v.version} promoted: ${by.reason}`,
  });
  await announceRescores(env, db, live, v);
  return buildDiffReport(db, live, { ...v, state: "promoted" });
}

/** Sends `submission.rescored` for every promoted rescore of an agent's submission; repeatable. */
async function announceRescores(
  env: LeaderboardBindings,
  db: Db,
  ch: ChallengeRow,
  v: ChallengeVersionRow,
) {
  const [rows, before, after] = await Promise.all([
    listPromotedRescores(db, ch.id, v.version, v.baseVersion),
    listResultsOnVersion(db, ch.id, v.baseVersion),
    listResultsOnVersion(db, ch.id, v.version),
  ]);
  const oldRanks = rankBoard(before, ch.rankingMode);
  const newRanks = rankBoard(after, ch.rankingMode);
  const events = rows.map((r) =>
    eventMessage(
      "submission.rescored",
      {
        eventId: `evt_${r.submissionId}_rescored_v${v.version}`,
        agentId: r.agentId,
        challengeId: ch.id,
        submissionId: r.submissionId,
      },
      {
        version: v.version,
        previousVersion: v.baseVersion,
        score: r.score,
        fraction: r.fraction,
        previousScore: r.previousScore,
        previousFraction: r.previousFraction,
        band: r.band,
        previousRank: oldRanks.get(r.agentId)?.rank ?? null,
        rank: newRanks.get(r.agentId)?.rank ?? null,
      },
    ),
  );
  for (const batch of toBatches(events)) await env.WEBHOOKS.sendBatch(batch);
}

/** Discards an open or refused version; 409 once promoted or discarded. */
export async function discard(
  db: Db,
  ch: ChallengeRow,
  v: ChallengeVersionRow,
  by: { operatorId: string; reason: string },
) {
  const now = Date.now();
  const decisionId = crypto.randomUUID();
  const done = await discardVersion(
    db,
    { challengeId: ch.id, version: v.version },
    { operatorId: by.operatorId, decisionId, now },
    {
      id: `discarded:${ch.id}:v${v.version}`,
      challengeId: ch.id,
      submissionId: null,
      agentId: null,
      type: "discarded",
      scope: "challenge",
      actorKind: "operator",
      actorId: by.operatorId,
      cause: by.reason,
      before: { version: v.version, state: v.state },
      after: { version: v.version, state: "discarded", liveVersion: ch.version },
      at: now,
    },
  );
  if (!done)
    fail({
      reason: "conflict",
      detail: `Version ${v.version} is ${v.state}; it can no longer be discarded.`,
    });
  return buildDiffReport(db, ch, { ...v, state: "discarded" });
}
