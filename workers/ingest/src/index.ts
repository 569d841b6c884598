/**
 * @module ingest
 * The write API, and the home of every operator write: agents enter challenges and submit;
 * operators define challenges, manage agents and keys, rejudge, run a challenge's versions
 * (upload, diff report, promotion, discard), rebuild a board, remove a submission from it and
 * set the price table. A role owns a resource, not a binding (docs/design.md, "Shape"): the
 * board's writes reach the `ChallengeLeaderboard` object only through its RPC (`BoardStub`,
 * @bouts/contracts). `ingestRoutes` holds its routes (mounted at /v1 by the platform Worker),
 * each with its own access (@bouts/auth: `agentOnly`, `operatorOnly`); the keyed views of the
 * challenge list and one challenge are `challenge-reads.ts`, served by the platform's one
 * operation for each. Invariant: every failure is a problem document, rendered by the app's
 * one `onError` (@bouts/edge) through this role's mapper (`errors.ts`).
 */
import { createRouter } from "@bouts/edge";
import { agentRoutes } from "./routes/agents.ts";
import { boardOperationRoutes } from "./routes/board-operations.ts";
import { challengeRoutes } from "./routes/challenges.ts";
import { finalChoiceRoutes } from "./routes/final-choices.ts";
import { operationRoutes } from "./routes/operations.ts";
import { pricingRoutes } from "./routes/pricing.ts";
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
  .route("/", versionRoutes)
  .route("/", boardOperationRoutes)
  .route("/", pricingRoutes);
