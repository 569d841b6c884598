/**
 * @module score/rescore-message
 * The rescore message on the submissions queue (docs/design.md §30) and its sending after a
 * live score, apart from rescore.ts so the live pipeline can send one without importing the
 * rescore path. Invariant: a message is only a nudge; the `rescores` row, written with the live
 * score, is the work, and the reconciler re-sends what a lost message leaves queued.
 */
import { findOpenVersion, findRescore, type Db, type RescoreKey } from "@bouts/db";
import { z } from "zod";

/** A rescore's message on the submissions queue. */
export const RescoreMessageSchema = z.object({
  v: z.literal(1),
  kind: z.literal("rescore"),
  challengeId: z.string().min(1).max(100),
  version: z.int().min(2),
  submissionId: z.string().min(1).max(100),
});
export type RescoreMessage = z.infer<typeof RescoreMessageSchema>;

/** The message that runs one rescore. */
export const rescoreMessage = (key: RescoreKey): RescoreMessage => ({
  v: 1,
  kind: "rescore",
  ...key,
});

/**
 * Sends the rescore message for `submissionId` when its challenge has an open candidate (its
 * row was written with the live score). A failed send is logged: the reconciler re-sends.
 */
export async function sendRescoreIfOpen(
  env: { SUBMISSIONS: Queue },
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
