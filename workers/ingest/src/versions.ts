/**
 * @module ingest/versions
 * A challenge's versions (docs/design.md §30), the whole resource: a new bundle version of a
 * published challenge is checked like any bundle (`readUploadedBundle`), stored, put through the
 * runner's challenge QA, and, when QA passes, recorded with a queued rescore of every counted
 * submission (each agent's ranking submission and its latest, every final choice, every
 * baseline), whose messages go on the submissions queue. The live version keeps serving until
 * the operator promotes: one D1 batch swaps the scores, the version and the split, then the
 * board is rebuilt from D1 in one call of the board's RPC (readers see the old board or the new
 * one, never a mix) and each affected agent gets `submission.rescored`; or discards. The diff
 * report is `buildDiffReport` (@bouts/db), which the leaderboard's operator page draws too.
 * Invariants: one open candidate per challenge (checked inside the insert); a refused QA is
 * recorded (`qa-failed`) and rescores nothing; the row is written before its messages are sent,
 * and the reconciler re-sends what a failed send leaves queued; a promotion is idempotent —
 * repeating it finishes the rebuild and the events a first call did not (event ids are
 * deterministic); a refused promotion or discard changes nothing.
 */
import {
  ChallengeManifestSchema,
  eventMessage,
  parseJson,
  rescoreMessage,
  resolveManifestSplit,
  toBatches,
  type ChallengeManifest,
  type EventMessage,
} from "@bouts/contracts";
import {
  baselineIds,
  buildDiffReport,
  countRescores,
  createDb,
  discardVersion,
  findLatestVersionNumber,
  findOpenVersion,
  insertVersion,
  listBaselineResults,
  listFinalChoices,
  listPromotedRescores,
  listRescores,
  listResultHistory,
  listResultsOnVersion,
  findSubmission,
  findVersion,
  promoteVersion,
  sha256Hex,
  type ChallengeRow,
  type ChallengeSplitRow,
  type ChallengeVersionRow,
  type Db,
  type RescoreTarget,
} from "@bouts/db";
import { countedSubmissionIds, rankBoard } from "@bouts/ranking";
import { buildBaselineArchive } from "./baselines.ts";
import { readUploadedBundle, type BundleUpload } from "./bundle-upload.ts";
import type { IngestConfig } from "./config.ts";
import { fail } from "./errors.ts";
import { rebuildAudited, type RebuildEnv } from "./rebuild.ts";
import { runChallengeQa } from "./runner-client.ts";
import { ensureObject } from "./storage.ts";

/** How many final choices a split allows when its manifest does not say. */
const DEFAULT_FINAL_CHOICES = 2;

/** A version as the API shows it, with its rescores counted by state. */
export async function versionToWire(db: Db, v: ChallengeVersionRow) {
  const rows = await listRescores(db, v.challengeId, v.version);
  return {
    challengeId: v.challengeId,
    version: v.version,
    baseVersion: v.baseVersion,
    state: v.state,
    note: v.note,
    bundleSha256: v.bundleSha256,
    qaPassed: v.qaPassed,
    createdAt: new Date(v.createdAt).toISOString(),
    decidedAt: v.decidedAt === null ? null : new Date(v.decidedAt).toISOString(),
    rescores: countRescores(rows),
  };
}

/**
 * The submissions a new version rescores: on the live version, each agent's ranking submission
 * and its latest, every final choice, and every baseline.
 */
export async function findCountedSubmissions(db: Db, ch: ChallengeRow): Promise<RescoreTarget[]> {
  const [history, choices, baselines] = await Promise.all([
    listResultHistory(db, ch.id),
    listFinalChoices(db, ch.id),
    listBaselineResults(db, ch.id),
  ]);
  const live = new Map(history.map((r) => [r.submissionId, r.agentId] as const));
  const counted = countedSubmissionIds(history, ch.rankingMode);
  const targets = new Map<string, string>();
  for (const id of counted) targets.set(id, live.get(id)!);
  // A choice counts at close; only one scored on the live version can be rescored.
  for (const c of choices) if (live.has(c.submissionId)) targets.set(c.submissionId, c.agentId);
  for (const b of baselines) targets.set(b.submissionId, b.agentId);
  return [...targets]
    .map(([submissionId, agentId]) => ({ submissionId, agentId }))
    .sort((a, b) => (a.submissionId < b.submissionId ? -1 : 1));
}

/**
 * Refuses (422) a version whose baselines differ from the published ones: a baseline is one
 * submission per challenge, scored from the folder the bundle shipped at publish, and is
 * rescored on a new version like any counted submission; a version that added, removed or
 * changed one would show a line its own bundle does not hold.
 */
async function checkBaselinesKept(
  db: Db,
  ch: ChallengeRow,
  manifest: ChallengeManifest,
  bundle: Uint8Array,
  maxBundleBytes: number,
): Promise<void> {
  const live = ChallengeManifestSchema.safeParse(parseJson(ch.bundleManifest));
  const published = new Set(live.success ? live.data.baselines.map((b) => b.id) : []);
  const changed: string[] = [];
  for (const spec of manifest.baselines) {
    const archive = await buildBaselineArchive(bundle, spec, maxBundleBytes);
    const row = await findSubmission(db, baselineIds(ch.id, spec.id).submissionId);
    if (
      !published.has(spec.id) ||
      !archive.ok ||
      row?.artifactSha256 !== (await sha256Hex(archive.value))
    )
      changed.push(spec.id);
  }
  const removed = [...published].filter((id) => !manifest.baselines.some((b) => b.id === id));
  if (changed.length > 0 || removed.length > 0)
    fail({
      reason: "unprocessable",
      detail: `A version cannot change the challenge's baselines (${[
        ...changed.map((id) => `${id}: new or changed`),
        ...removed.map((id) => `${id}: removed`),
      ].join("; ")}); keep each baseline's folder as published, or publish a new challenge.`,
    });
}

/**
 * Uploads a candidate version of a published challenge and starts its shadow rescoring.
 * Answers 409 for a challenge that is not published or already has an open candidate, or a
 * bundle identical to the live one; 415/413/422 as a bundle upload; 422 `qa-failed` (recorded)
 * when QA refuses it, or when it adds, removes or changes a baseline; 503 when the runner or
 * storage is down (nothing recorded).
 */
export async function uploadVersion(
  env: Env,
  db: Db,
  cfg: IngestConfig,
  ch: ChallengeRow,
  upload: Omit<BundleUpload, "challenge">,
  by: { operatorId: string; note: string },
): Promise<ChallengeVersionRow> {
  if (ch.status !== "published")
    fail({
      reason: "conflict",
      detail:
        ch.status === "draft"
          ? "The challenge is a draft: replace its bundle with PUT /v1/challenges/{id}/bundle."
          : "The challenge is closed; its boards are final.",
    });
  const open = await findOpenVersion(db, ch.id);
  if (open)
    fail({
      reason: "conflict",
      detail: `Version ${open.version} is still ${open.state}; promote or discard it first.`,
    });
  const read = await readUploadedBundle(cfg, upload, ch.slug);
  if (!read.ok) fail(read.error);
  const { bytes, manifest } = read.value;
  await checkBaselinesKept(db, ch, manifest, bytes, cfg.maxBundleBytes);
  const sha256 = await sha256Hex(bytes);
  if (sha256 === ch.bundleSha256)
    fail({ reason: "conflict", detail: "The bundle is identical to the live version's." });
  const key = `bundles/${sha256}`;
  try {
    await ensureObject(env.ARTIFACTS, { key, bytes, contentType: "application/gzip" });
  } catch (e) {
    console.error("R2 put of a version bundle failed", e);
    fail({ reason: "unavailable", service: "artifact store", retryAfter: 30 });
  }
  const qa = await runChallengeQa(env, cfg, new Uint8Array(bytes));
  if (!qa.ok) {
    console.error("challenge QA could not run", qa.error.detail);
    fail({ reason: "unavailable", service: "runner (challenge QA)", retryAfter: 30 });
  }
  const now = Date.now();
  const version = Math.max(ch.version, (await findLatestVersionNumber(db, ch.id)) ?? 0) + 1;
  const targets = qa.value.passed ? await findCountedSubmissions(db, ch) : [];
  const row: ChallengeVersionRow = {
    challengeId: ch.id,
    version,
    baseVersion: ch.version,
    bundleKey: key,
    bundleSha256: sha256,
    bundleManifest: JSON.stringify(manifest),
    qaReport: JSON.stringify(qa.value.report),
    qaPassed: qa.value.passed,
    state: qa.value.passed ? "rescoring" : "qa-failed",
    note: by.note,
    createdBy: by.operatorId,
    createdAt: now,
    decidedBy: null,
    decidedAt: null,
    decisionId: null,
  };
  const written = await insertVersion(db, row, targets, {
    id: `version-uploaded:${ch.id}:v${version}`,
    challengeId: ch.id,
    submissionId: null,
    agentId: null,
    type: "version-uploaded",
    scope: "challenge",
    actorKind: "operator",
    actorId: by.operatorId,
    cause: by.note || `version ${version} uploaded`,
    before: { version: ch.version, bundleSha256: ch.bundleSha256 },
    after: {
      version,
      bundleSha256: sha256,
      qaPassed: qa.value.passed,
      rescores: targets.length,
    },
    at: now,
  });
  if (!written)
    fail({
      reason: "conflict",
      detail:
        "The challenge changed while the version was checked (another version, a close); retry.",
    });
  if (!qa.value.passed)
    fail({
      reason: "qa-failed",
      detail: `Version ${version} was recorded, but the runner's challenge QA failed: ${qa.value.problems.slice(0, 3).join("; ") || "see the QA report"}.`,
      errors: qa.value.problems.map((message) => ({ path: "bundle", message })),
    });
  try {
    const messages = targets.map((t) =>
      rescoreMessage({ challengeId: ch.id, version, submissionId: t.submissionId }),
    );
    for (const batch of toBatches(messages)) await env.SUBMISSIONS.sendBatch(batch);
  } catch (e) {
    // The rows are queued: the scoring reconciler sends what did not go out.
    console.error(`version ${version} of ${ch.id}: rescore messages not all sent`, e);
  }
  // As stored: a version with nothing to rescore is ready at once.
  return (await findVersion(db, ch.id, version)) ?? row;
}

// ─── Promotion and discard ───

/** What a promotion needs: the rebuild's D1 and board, and the webhooks queue. */
export type PromoteEnv = RebuildEnv & { WEBHOOKS: Queue<EventMessage> };

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
  env: PromoteEnv,
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
async function announceRescores(env: PromoteEnv, db: Db, ch: ChallengeRow, v: ChallengeVersionRow) {
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
