/**
 * @module score/rescore
 * Shadow rescoring (docs/design.md §30): a counted submission re-run against a candidate
 * version's bundle by the same pipeline as live scoring (`scoreOnBundle`), through the same
 * submissions queue and runner, under a lease of its own (`rescores`). The result is kept in
 * the rescore row, with every test whose verdict changed; nothing reaches `scores`, the board or
 * a webhook until the operator promotes. Lower priority than live work: a rescore yields (its
 * message comes back later) while any live submission is queued or running, and at most
 * RESCORE_CONCURRENCY rescores hold a runner at once. Rescoring is the operator's doing, so it
 * is not charged to the agent's runner time.
 */
import {
  ChallengeManifestSchema,
  RunReportSchema,
  parseJson,
  type RescoreMessage,
  type RunReport,
} from "@bouts/contracts";
import {
  claimRescore,
  countLiveBacklog,
  countRunningRescores,
  createDb,
  deferRescore,
  findFullScoreKey,
  findRescore,
  findScore,
  findScoringContext,
  findVersion,
  isRescoreClaimable,
  settleRescore,
  type RescoreKey,
} from "@bouts/db";
import {
  scoreWriteOf,
  computeRetryDelaySeconds,
  LEASE_MS,
  ATTEMPT_DEADLINE_MS,
  RETRY_WINDOW_MS,
  type MessageOutcome,
} from "./pipeline.ts";
import type { ScoreEnv } from "./env.ts";
import { scoreOnBundle, storeReport } from "./score-run.ts";

export { sendRescoreIfOpen } from "./rescore-message.ts";

/** How many rescores may hold a runner at once, across challenges. */
export const RESCORE_CONCURRENCY = 1;
/** How long a rescore waits before it looks again when live work or other rescores run. */
export const RESCORE_YIELD_SECONDS = 20;

/** One test whose verdict differs between the live score and the rescore. */
export interface ChangedTest {
  suite: "static" | "adversarial";
  id: string;
  name: string;
  /** The category (static) or `origin:severity` (adversarial). */
  bucket: string;
  /** The verdict on the live version; null when the test did not exist there. */
  before: string | null;
  /** The verdict on the candidate; null when the candidate removed the test. */
  after: string | null;
}

/**
 * Every test whose verdict differs between two run reports of one submission (added, removed
 * or changed), static tests then adversarial, each in report order; `names` gives each test id
 * its manifest name (a generated test is named by its id). Pure.
 */
export function diffVerdicts(
  before: RunReport | null,
  after: RunReport,
  names: ReadonlyMap<string, string> = new Map(),
): ChangedTest[] {
  type Row = Omit<ChangedTest, "before" | "after"> & { status: string };
  const rows = (r: RunReport | null): Map<string, Row> => {
    const m = new Map<string, Row>();
    for (const t of r?.staticTests ?? [])
      m.set(`static:${t.id}`, {
        suite: "static",
        id: t.id,
        name: names.get(t.id) ?? t.id,
        bucket: t.category,
        status: t.status,
      });
    for (const t of r?.adversarialTests ?? [])
      m.set(`adversarial:${t.id}`, {
        suite: "adversarial",
        id: t.id,
        name: names.get(t.id) ?? t.id,
        bucket: `${t.origin}:${t.severity}`,
        status: t.status,
      });
    return m;
  };
  const old = rows(before);
  const next = rows(after);
  const changed: ChangedTest[] = [];
  for (const [key, t] of next) {
    const was = old.get(key)?.status ?? null;
    if (was !== t.status)
      changed.push({
        suite: t.suite,
        id: t.id,
        name: t.name,
        bucket: t.bucket,
        before: was,
        after: t.status,
      });
  }
  for (const [key, t] of old)
    if (!next.has(key))
      changed.push({
        suite: t.suite,
        id: t.id,
        name: t.name,
        bucket: t.bucket,
        before: t.status,
        after: null,
      });
  const order = (c: ChangedTest) => (c.suite === "static" ? 0 : 1);
  return changed.sort((a, b) => order(a) - order(b));
}

/** Each hidden test's name, by id, from the manifests given (later ones win). */
function testNames(...manifests: (string | null)[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const text of manifests) {
    const m = ChallengeManifestSchema.safeParse(parseJson(text));
    if (m.success)
      for (const t of [...m.data.staticTests, ...m.data.adversarialTests]) names.set(t.id, t.name);
  }
  return names;
}

/** Reads a stored run report; null when absent or unreadable. */
async function readReport(artifacts: R2Bucket, key: string | null): Promise<RunReport | null> {
  if (!key) return null;
  const object = await artifacts.get(key);
  if (!object) return null;
  const parsed = RunReportSchema.safeParse(parseJson(await object.text()));
  return parsed.success ? parsed.data : null;
}

/** Processes one rescore message. Never throws for expected failures. */
export async function processRescore(
  env: ScoreEnv,
  msg: RescoreMessage,
  now: () => number,
): Promise<MessageOutcome> {
  const db = createDb(env.DB);
  const key: RescoreKey = {
    challengeId: msg.challengeId,
    version: msg.version,
    submissionId: msg.submissionId,
  };
  const label = `rescore ${msg.submissionId} on v${msg.version}`;
  const version = await findVersion(db, key.challengeId, key.version);
  if (version?.state !== "rescoring")
    return { action: "ack", note: `${label}: the version is ${version?.state ?? "unknown"}` };
  const row = await findRescore(db, key);
  if (!row || row.state === "scored" || row.state === "failed")
    return { action: "ack", note: `${label}: ${row ? `already ${row.state}` : "unknown"}` };
  if (row.state === "queued" && row.retryAt > now())
    return {
      action: "retry",
      delaySeconds: Math.ceil((row.retryAt - now()) / 1000),
      note: `${label}: not due`,
    };
  // Lower priority than live scoring: yield while live work waits or runs, or the rescore lane
  // is full. These counts only spare a claim that would fail: the lane's limit is the claim
  // itself, which takes the lease only while fewer than RESCORE_CONCURRENCY rescores hold one.
  const yieldTo = (backlog: number, running: number): MessageOutcome => ({
    action: "retry",
    delaySeconds: RESCORE_YIELD_SECONDS,
    note: `${label}: yields to ${backlog} live submission(s) and ${running} rescore(s)`,
  });
  const [backlog, running] = await Promise.all([
    countLiveBacklog(db),
    countRunningRescores(db, now()),
  ]);
  if (backlog > 0 || running >= RESCORE_CONCURRENCY) return yieldTo(backlog, running);
  const attempt = await claimRescore(db, key, now(), LEASE_MS, RESCORE_CONCURRENCY);
  if (attempt === null) {
    // Refused: the lane filled since the count (yield), or the rescore is gone (discarded,
    // settled or claimed by another consumer: ack).
    if (await isRescoreClaimable(db, key, now()))
      return yieldTo(0, await countRunningRescores(db, now()));
    return { action: "ack", note: `${label}: not claimable` };
  }
  const ctx = await findScoringContext(db, key.submissionId);
  const live = await findScore(db, key.submissionId);
  if (!ctx || !live) {
    await settleRescore(
      db,
      key,
      { state: "failed", error: "the submission has no live score" },
      now(),
    );
    return { action: "ack", note: `${label}: no live score` };
  }
  const run = await scoreOnBundle(
    env,
    ctx,
    { bundleKey: version.bundleKey, manifest: version.bundleManifest },
    {
      runId: `${key.submissionId}-v${key.version}-${attempt}`,
      signal: AbortSignal.timeout(ATTEMPT_DEADLINE_MS),
      now,
    },
  );
  if (!run.ok) {
    const since = row.waitingSince ?? now();
    if (run.error.kind === "retry" && now() - since < RETRY_WINDOW_MS) {
      const delaySeconds = computeRetryDelaySeconds(attempt);
      await deferRescore(db, key, run.error.detail, now(), now() + delaySeconds * 1000);
      return { action: "retry", delaySeconds, note: `${label}: ${run.error.detail}` };
    }
    const error =
      run.error.kind === "retry"
        ? `gave up after ${attempt} attempts: ${run.error.detail}`
        : `${run.error.code}: ${run.error.reason}`;
    await settleRescore(db, key, { state: "failed", error }, now());
    return { action: "ack", note: `${label}: failed: ${error}` };
  }
  const scored = run.value;
  // Discarded while it ran: nothing of it is stored (settleRescore checks again, atomically).
  if ((await findVersion(db, key.challengeId, key.version))?.state !== "rescoring") {
    await settleRescore(db, key, { state: "failed", error: "discarded" }, now());
    return { action: "ack", note: `${label}: the version was discarded while it ran` };
  }
  const reportKey = `reports/v${key.version}/${key.submissionId}.json`;
  await storeReport(env.ARTIFACTS, reportKey, scored.seen.report);
  const full = scored.full
    ? { ...scored.full, reportKey: `reports-full/v${key.version}/${key.submissionId}.json` }
    : null;
  if (full) await storeReport(env.ARTIFACTS, full.reportKey, scored.report);
  // The diff compares whole suites: the live full report where the live version had a split.
  const before = await readReport(
    env.ARTIFACTS,
    (await findFullScoreKey(db, key.submissionId)) ?? live.reportKey,
  );
  const versioned = { ...ctx, challenge: { ...ctx.challenge, version: key.version } };
  const write = scoreWriteOf(versioned, scored, reportKey, now());
  const settled = await settleRescore(
    db,
    key,
    {
      state: "scored",
      scoreWrite: JSON.stringify(write),
      fullScore: full ? JSON.stringify(full) : null,
      changedTests: JSON.stringify(
        diffVerdicts(
          before,
          scored.report,
          testNames(ctx.challenge.bundleManifest, version.bundleManifest),
        ),
      ),
      finalRounded: write.score.finalRounded,
      finalUnrounded: write.score.finalUnrounded,
    },
    now(),
  );
  if (!settled)
    return { action: "ack", note: `${label}: discarded or settled meanwhile; not written` };
  return {
    action: "ack",
    note: `${label}: ${live.finalUnrounded} → ${write.score.finalUnrounded}`,
  };
}
