/**
 * @module score/rescore-message
 * Sending the rescore message (docs/design.md §30; its shape is `@bouts/contracts`'
 * `RescoreMessage`) after a live score, apart from rescore.ts so the live pipeline can send one
 * without importing the rescore path. Invariant: a message is only a nudge; the `rescores` row,
 * written with the live score, is the work, and the reconciler re-sends what a lost message
 * leaves queued.
 */
import { rescoreMessage, type SubmissionsQueueMessage } from "@bouts/contracts";
import { findOpenVersion, findRescore, type Db } from "@bouts/db";

/**
 * Sends the rescore message for `submissionId` when its challenge has an open candidate (its
 * row was written with the live score). A failed send is logged: the reconciler re-sends.
 */
export async function sendRescoreIfOpen(
  env: { SUBMISSIONS: Queue<SubmissionsQueueMessage> },
  db: Db,
  challengeId: string,
  submissionId: string,
): Promise<void> {
  try {
    const open = await findOpenVersion(db, challengeId);
    if (!open) return;
    const row = await findRescore(db, { challengeId, version: open.version, submissionId });
    if (row?.state === "queued")
      await env.SUBMISSIONS.send(
        rescoreMessage({ challengeId, version: open.version, submissionId }),
      );
  } catch (e) {
    console.error(`rescore of ${submissionId} not sent (the reconciler will)`, e);
  }
}
