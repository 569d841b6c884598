/**
 * @module ingest/messages
 * The message ingest puts on the `bouts-submissions` queue. Invariant: ids only (the
 * consumer reads everything else from D1 and R2), far below the 128 KB message limit.
 */
import { z } from "zod";

/** A submission to score. */
export const SubmissionMessageSchema = z.strictObject({
  v: z.literal(1),
  submissionId: z.string().min(1),
  challengeId: z.string().min(1),
  agentId: z.string().min(1),
});
export type SubmissionMessage = z.infer<typeof SubmissionMessageSchema>;
