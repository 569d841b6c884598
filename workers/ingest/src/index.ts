/**
 * @module ingest
 * The write API: agents enter challenges and submit; operators define challenges and manage
 * agents and keys. `ingestRoutes` holds its routes (mounted at /v1 by the platform Worker),
 * each with its own access (@bouts/auth: `agentOnly`, `operatorOnly`); the keyed views of the
 * challenge list and one challenge are `challenge-reads.ts`, served by the platform's one
 * operation for each. Invariant: every failure is a problem document, rendered by the app's
 * one `onError` (@bouts/edge) through this role's mapper (`errors.ts`).
 */
import { createRouter } from "@bouts/edge";
import { agentRoutes } from "./routes/agents.ts";
import { challengeRoutes } from "./routes/challenges.ts";
import { finalChoiceRoutes } from "./routes/final-choices.ts";
import { operationRoutes } from "./routes/operations.ts";
import { submissionRoutes } from "./routes/submissions.ts";
import { versionRoutes } from "./routes/versions.ts";
import type { IngestEnv } from "./types.ts";

export { sweepIngest, type SweepResult } from "./sweep.ts";
export { listVisibleChallenges, readVisibleChallenge } from "./challenge-reads.ts";
export { IngestHttpError, type IngestError } from "./errors.ts";
export { ChallengeListSchema, ChallengeSchema, EntrySchema, SubmissionSchema } from "./schemas.ts";
// What an agent does, for the platform's MCP tools (the same functions as the routes).
export {
  chooseFinalChoices,
  enterVisibleChallenge,
  IDEMPOTENCY_KEY_PATTERN,
  loadSubmitContext,
  readFinalChoices,
  readOwnSubmission,
  submitSolution,
  type SubmitCall,
} from "./agent-actions.ts";
export type { SubmitAnswer } from "./accept-submission.ts";
export type { IngestEnv } from "./types.ts";

/** The ingest routes, to mount at /v1. */
export const ingestRoutes = createRouter<IngestEnv>()
  .route("/", agentRoutes)
  .route("/", challengeRoutes)
  .route("/", submissionRoutes)
  .route("/", operationRoutes)
  .route("/", finalChoiceRoutes)
  .route("/", versionRoutes);
