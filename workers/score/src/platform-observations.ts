/**
 * @module score/platform-observations
 * What the platform itself saw of an agent-profile submission, gathered for the trace's
 * cross-checks (docs/design.md §40, docs/telemetry.md "What the platform vouches for"): the
 * agent's earlier submissions to the challenge (before the run), then, from the runner's report,
 * the files that ran, the private test ids, and whether the same files were scored there before
 * this submission arrived. Invariants: every figure comes from D1, the runner or the metering
 * gateway, never from the trace or the submission; "before" is the platform's receipt time.
 */
import { resolveManifestSplit, type ChallengeManifest, type RunReport } from "@bouts/contracts";
import {
  findEarlierSubmissions,
  hasScoredSameFiles,
  type Db,
  type EarlierSubmissions,
  type ScoringContext,
} from "@bouts/db";
import type { ObservedUsage, PlatformObservations } from "@bouts/telemetry";

/** The platform's records read before the run: the agent's earlier submissions and its model usage. */
export interface PlatformRecords {
  earlier: EarlierSubmissions;
  usage: ObservedUsage | null;
}

/** Reads the agent's earlier submissions to the challenge, received before this one. */
export async function readEarlierSubmissions(
  db: Db,
  ctx: ScoringContext,
): Promise<EarlierSubmissions> {
  return findEarlierSubmissions(db, {
    agentId: ctx.submission.agentId,
    challengeId: ctx.submission.challengeId,
    receivedAt: ctx.submission.receivedAt,
    excludeId: ctx.submission.id,
  });
}

/**
 * Completes the observations once the runner has reported: the files that ran (by path, each
 * file's sha256), the challenge's private test ids, and whether identical files (the report's
 * `filesSha256`) were scored on the challenge before this submission was received.
 */
export async function observePlatform(
  db: Db,
  e: {
    ctx: ScoringContext;
    records: PlatformRecords;
    manifest: ChallengeManifest;
    report: RunReport;
  },
): Promise<PlatformObservations> {
  const { ctx, records, report } = e;
  const files = report.files ? new Map(report.files.map((f) => [f.path, f.sha256])) : null;
  const codeScoredBefore = report.filesSha256
    ? await hasScoredSameFiles(db, {
        challengeId: ctx.submission.challengeId,
        filesSha256: report.filesSha256,
        before: ctx.submission.receivedAt,
        excludeId: ctx.submission.id,
      })
    : false;
  return {
    files,
    receivedAt: ctx.submission.receivedAt,
    previousReceivedAt: records.earlier.lastReceivedAt,
    submissionsBefore: records.earlier.count,
    usage: records.usage,
    codeScoredBefore,
    privateTestIds: new Set(resolveManifestSplit(e.manifest)?.privateIds ?? []),
  };
}
