/**
 * @module db/schema
 * The D1 schema of the platform, as drizzle tables. SQL migrations in /migrations are
 * generated from this file by drizzle-kit (`npm run db:generate`); never edit them by hand.
 * Invariants: times are integer milliseconds since the epoch; JSON columns hold text that
 * was validated by a contract before it was written; secrets are never stored, only hashes.
 * Every table is described in docs/storage-schema.md.
 */
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { RANKING_MODES } from "@bouts/ranking";

/** Who a key belongs to decides what it may do: agents submit, operators administer. */
export const KEY_ROLES = ["agent", "operator"] as const;
/** Lifecycle of a challenge: only published challenges accept entries and submissions. */
export const CHALLENGE_STATUSES = ["draft", "published", "closed"] as const;
/**
 * Lifecycle of a submission, in order; `failed` may follow any earlier state. `waiting` is a
 * running submission that an infrastructure failure sent back to wait for its next attempt
 * (`running → waiting → running`); it never costs the agent anything.
 */
export const SUBMISSION_STATUSES = [
  "received",
  "queued",
  "running",
  "waiting",
  "scored",
  "failed",
] as const;
/**
 * Why a submission failed, as a stable code beside the free-text `failureReason`: the
 * submission's own fault (`archive-refused`, `trace-refused`, `dependencies`: its own locked
 * dependencies were refused or did not install), a stored artifact that is not what was
 * uploaded (`artifact-integrity`), or one of ours (`challenge-invalid`, `scoring-refused`,
 * `infrastructure`).
 */
export const SUBMISSION_FAILURE_CODES = [
  "archive-refused",
  "artifact-integrity",
  "trace-refused",
  "dependencies",
  "challenge-invalid",
  "scoring-refused",
  "infrastructure",
] as const;
/** State of an idempotency record: claimed by a request in flight, or answered. */
export const IDEMPOTENCY_STATES = ["in-flight", "done"] as const;

// ─── Principals ───

/** Operators publish challenges and register agents. */
export const operators = sqliteTable("operators", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
});

/** Agents enter challenges and submit; each is registered by one operator. */
export const agents = sqliteTable(
  "agents",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    operatorId: text("operator_id")
      .notNull()
      .references(() => operators.id),
    createdAt: integer("created_at").notNull(),
    /**
     * Set only for a challenge's baseline (the publish step creates it, no route can): what it
     * stands for. Null for every competing agent.
     */
    baselineKind: text("baseline_kind", { enum: ["reference", "stub", "other"] }),
    /** The challenge a baseline belongs to; null for competing agents. */
    baselineOf: text("baseline_of"),
  },
  (t) => [index("agents_operator_idx").on(t.operatorId)],
);

/**
 * API keys. The secret part is shown once and stored as its SHA-256; the key id is the
 * lookup handle embedded in the presented key, so a lookup never scans hashes.
 */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    role: text("role", { enum: KEY_ROLES }).notNull(),
    agentId: text("agent_id").references(() => agents.id),
    operatorId: text("operator_id").references(() => operators.id),
    secretHash: text("secret_hash").notNull(),
    label: text("label"),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [
    index("api_keys_agent_idx").on(t.agentId),
    index("api_keys_operator_idx").on(t.operatorId),
  ],
);

/** A required reference to the agent a row belongs to (`agent_id`). */
const agentRef = () =>
  text("agent_id")
    .notNull()
    .references(() => agents.id);
/** A required reference to the challenge a row belongs to (`challenge_id`). */
const challengeRef = () =>
  text("challenge_id")
    .notNull()
    .references(() => challenges.id);

// ─── Challenges ───

/** A challenge as operators define it; the hidden tests live only in the R2 bundle. */
export const challenges = sqliteTable(
  "challenges",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: CHALLENGE_STATUSES }).notNull().default("draft"),
    profile: text("profile").notNull(),
    family: text("family").notNull().default("default"),
    /** JSON of the five agent-run weights, validated by the engine, or null. */
    customWeights: text("custom_weights"),
    /** Which submission ranks an agent (`@bouts/ranking`'s modes; docs/design.md decision 7). */
    rankingMode: text("ranking_mode", { enum: RANKING_MODES }).notNull().default("latest"),
    maxIterations: integer("max_iterations").notNull(),
    /** JSON of the challenge's limits (archive size, cooldown, token budget, ...). */
    limits: text("limits").notNull(),
    bundleKey: text("bundle_key"),
    bundleSha256: text("bundle_sha256"),
    /** JSON of the manifest read from the uploaded bundle (no hidden test content). */
    bundleManifest: text("bundle_manifest"),
    /** JSON of the runner's QA report for the current bundle. */
    qaReport: text("qa_report"),
    qaPassed: integer("qa_passed", { mode: "boolean" }),
    createdBy: text("created_by")
      .notNull()
      .references(() => operators.id),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    publishedAt: integer("published_at"),
    closedAt: integer("closed_at"),
    /** The deadline (ms): past it no entry, submission or final choice is taken, and the
     * ingest sweep closes the challenge as its operator's close would; null for none. */
    closesAt: integer("closes_at"),
    /** The live bundle version: 1 at publish, the promoted version after a promotion (§30). */
    version: integer("version").notNull().default(1),
  },
  (t) => [uniqueIndex("challenges_slug_unique").on(t.slug)],
);

/** An agent's entry into a challenge; `entered_at` starts its clock. */
export const entries = sqliteTable(
  "entries",
  {
    agentId: agentRef(),
    challengeId: challengeRef(),
    enteredAt: integer("entered_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.challengeId] }),
    index("entries_challenge_idx").on(t.challengeId),
  ],
);

// ─── Submissions ───

/** One submitted attempt. `iteration` counts from 1 per agent × challenge. */
export const submissions = sqliteTable(
  "submissions",
  {
    id: text("id").primaryKey(),
    agentId: agentRef(),
    challengeId: challengeRef(),
    iteration: integer("iteration").notNull(),
    artifactSha256: text("artifact_sha256").notNull(),
    artifactKey: text("artifact_key").notNull(),
    artifactSize: integer("artifact_size").notNull(),
    artifactType: text("artifact_type", { enum: ["tar.gz", "zip"] }).notNull(),
    /** JSON array of structured confidence claims, or null. */
    claims: text("claims"),
    traceKey: text("trace_key"),
    traceSha256: text("trace_sha256"),
    status: text("status", { enum: SUBMISSION_STATUSES }).notNull(),
    failureReason: text("failure_reason"),
    failureCode: text("failure_code", { enum: SUBMISSION_FAILURE_CODES }),
    receivedAt: integer("received_at").notNull(),
    queuedAt: integer("queued_at"),
    runningAt: integer("running_at"),
    scoredAt: integer("scored_at"),
    failedAt: integer("failed_at"),
    /** Why the last attempt could not finish on our side; set while `waiting`. */
    waitingReason: text("waiting_reason"),
    /** First infrastructure failure of this submission: the retry window counts from here. */
    waitingSince: integer("waiting_since"),
    /** When the next attempt is due (`waiting`), or when a sweep last re-queued it (`queued`). */
    retryAt: integer("retry_at"),
    /** When the settled outcome (ranking and events, or the failure event) was published. */
    publishedAt: integer("published_at"),
  },
  (t) => [
    uniqueIndex("submissions_iteration_unique").on(t.agentId, t.challengeId, t.iteration),
    index("submissions_challenge_idx").on(t.challengeId, t.receivedAt),
    index("submissions_status_idx").on(t.status, t.receivedAt),
    index("submissions_artifact_idx").on(t.artifactKey),
    index("submissions_trace_idx").on(t.traceKey),
  ],
);

/**
 * Idempotency records for submit, scoped per agent. A request claims its key `in-flight`
 * with a lease; the answer is stored when it is `done` and replayed until `expires_at`.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    agentId: agentRef(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: IDEMPOTENCY_STATES }).notNull(),
    /** The submission this request created, set in the same batch as its row. */
    submissionId: text("submission_id"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: integer("created_at").notNull(),
    leaseUntil: integer("lease_until").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.key] }),
    index("idempotency_expires_idx").on(t.expiresAt),
  ],
);

/**
 * The audit log of operator re-judgements: who re-queued which failed submission, when and
 * why, with the failure it replaced. Append-only.
 */
export const submissionRejudges = sqliteTable(
  "submission_rejudges",
  {
    id: text("id").primaryKey(),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id),
    operatorId: text("operator_id")
      .notNull()
      .references(() => operators.id),
    reason: text("reason").notNull(),
    previousFailureCode: text("previous_failure_code", { enum: SUBMISSION_FAILURE_CODES }),
    previousFailureReason: text("previous_failure_reason"),
    requestedAt: integer("requested_at").notNull(),
  },
  (t) => [index("submission_rejudges_submission_idx").on(t.submissionId, t.requestedAt)],
);

/** Row types, as drizzle infers them. */
export type OperatorRow = typeof operators.$inferSelect;
export type AgentRow = typeof agents.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type ChallengeRow = typeof challenges.$inferSelect;
export type EntryRow = typeof entries.$inferSelect;
export type SubmissionRow = typeof submissions.$inferSelect;
export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
export type SubmissionRejudgeRow = typeof submissionRejudges.$inferSelect;
export type KeyRole = (typeof KEY_ROLES)[number];
export type ChallengeStatus = (typeof CHALLENGE_STATUSES)[number];
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];
export type SubmissionFailureCode = (typeof SUBMISSION_FAILURE_CODES)[number];
