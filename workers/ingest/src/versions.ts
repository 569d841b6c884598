/**
 * @module ingest/versions
 * A new bundle version of a published challenge (docs/design.md §30): checked like any bundle
 * (`readUploadedBundle`), stored, put through the runner's challenge QA, and, when QA passes,
 * recorded with a queued rescore of every counted submission (each agent's ranking submission
 * and its latest, every final choice, every baseline), whose messages go on the submissions
 * queue. The live version keeps serving until an operator promotes. Invariants: one open
 * candidate per challenge (checked inside the insert); a refused QA is recorded (`qa-failed`)
 * and rescores nothing; the row is written before its messages are sent, and the reconciler
 * re-sends what a failed send leaves queued.
 */
import {
  ChallengeManifestSchema,
  parseJson,
  rescoreMessage,
  toBatches,
  type ChallengeManifest,
} from "@bouts/contracts";
import {
  baselineIds,
  countRescores,
  findLatestVersionNumber,
  findOpenVersion,
  insertVersion,
  listBaselineResults,
  listFinalChoices,
  listRescores,
  listResultHistory,
  findSubmission,
  findVersion,
  sha256Hex,
  type ChallengeRow,
  type ChallengeVersionRow,
  type Db,
  type RescoreTarget,
} from "@bouts/db";
import { countedSubmissionIds } from "@bouts/ranking";
import { buildBaselineArchive } from "./baselines.ts";
import { readUploadedBundle, type BundleUpload } from "./bundle-upload.ts";
import type { IngestConfig } from "./config.ts";
import { fail } from "./errors.ts";
import { runChallengeQa } from "./runner-client.ts";
import { ensureObject } from "./storage.ts";

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
