/**
 * @module ingest/sweep
 * The scheduled clean-up of what a Worker that died mid-request can leave behind (no code ran
 * to undo it; see docs/storage-schema.md): submissions stuck in `received` (their message may
 * never have been sent), R2 objects no row references, and expired idempotency records; and it
 * closes challenges whose deadline passed (deadline.ts).
 * Invariants: every step is bounded per run; a young object or row is never touched (a
 * request may still be using it); re-sending a message is safe because consumers are
 * idempotent by submission id.
 */
import { submissionMessage } from "@bouts/contracts";
import {
  createDb,
  findStaleReceivedSubmissions,
  isObjectReferenced,
  purgeExpiredIdempotencyKeys,
  transitionSubmission,
} from "@bouts/db";
import { closeDueChallenges } from "./deadline.ts";

/** How old a leftover must be before the sweep touches it, and how much one run does. */
export type SweepOptions = { graceMs: number; maxRows: number; maxObjects: number };

/** What one sweep did. */
export type SweepResult = {
  requeued: number;
  failed: number;
  objectsDeleted: number;
  idempotencyPurged: number;
  /** Challenges the sweep closed because their deadline passed. */
  closedAtDeadline: number;
};

const DEFAULTS: SweepOptions = { graceMs: 15 * 60_000, maxRows: 100, maxObjects: 1000 };
const PREFIXES = ["artifacts/", "traces/", "bundles/"] as const;

/** Runs one sweep at time `now`. */
export async function sweepIngest(
  env: Env,
  now: number,
  options: Partial<SweepOptions> = {},
): Promise<SweepResult> {
  const opts = { ...DEFAULTS, ...options };
  const db = createDb(env.DB);
  const cutoff = now - opts.graceMs;
  const result: SweepResult = {
    requeued: 0,
    failed: 0,
    objectsDeleted: 0,
    idempotencyPurged: 0,
    closedAtDeadline: 0,
  };

  // Rows whose request died between its commit and marking them queued.
  for (const s of await findStaleReceivedSubmissions(db, cutoff, opts.maxRows)) {
    const present =
      (await env.ARTIFACTS.head(s.artifactKey)) !== null &&
      (s.traceKey === null || (await env.ARTIFACTS.head(s.traceKey)) !== null);
    if (!present) {
      const reason = "the upload was interrupted: its stored files are missing; submit again";
      if (await transitionSubmission(db, s.id, "failed", now, reason)) result.failed++;
      continue;
    }
    const message = submissionMessage({
      submissionId: s.id,
      challengeId: s.challengeId,
      agentId: s.agentId,
    });
    await env.SUBMISSIONS.send(message, { contentType: "json" });
    if (await transitionSubmission(db, s.id, "queued", now)) result.requeued++;
  }

  // Objects whose row was never written.
  let budget = opts.maxObjects;
  for (const prefix of PREFIXES) {
    let cursor: string | undefined;
    do {
      const page = await env.ARTIFACTS.list({
        prefix,
        limit: Math.min(budget, 500),
        ...(cursor ? { cursor } : {}),
      });
      budget -= page.objects.length;
      for (const o of page.objects) {
        if (o.uploaded.getTime() >= cutoff) continue;
        if (await isObjectReferenced(db, o.key)) continue;
        // A request storing the same bytes again refreshes `uploaded`: leave it to that request.
        const current = await env.ARTIFACTS.head(o.key);
        if (!current || current.uploaded.getTime() >= cutoff) continue;
        await env.ARTIFACTS.delete(o.key);
        result.objectsDeleted++;
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor && budget > 0);
  }

  result.idempotencyPurged = await purgeExpiredIdempotencyKeys(db, now);
  // Challenges whose deadline passed close as the operator's close would (deadline.ts).
  result.closedAtDeadline = await closeDueChallenges(db, now);
  return result;
}
