/**
 * @module ingest/schemas
 * Wire schemas of the ingest API (bodies, params, responses), registered in the OpenAPI
 * document. Invariants: every request body is a strict object, so unknown fields (a score,
 * a status, an owner, a limit the caller may not set) are refused, never ignored; responses
 * carry no secret except a key shown once at creation, and never a hidden test.
 */
import { z } from "@hono/zod-openapi";
import {
  AgentWeightsSchema,
  ConfidenceClaimSchema,
  FamilySchema,
  nonBlankText,
  ProblemSchema,
  ProfileSchema,
} from "@bouts/contracts";
import { SUBMISSION_FAILURE_CODES } from "@bouts/db";
import { RANKING_MODES } from "@bouts/ranking";

// ─── Shared ───

/** Ids in paths: uuids or slugs, never anything that could escape a key prefix. */
export const IdParamSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/, "an id or slug")
    .openapi({ param: { name: "id", in: "path" }, example: "fizzbuzz-api" }),
});

const Timestamp = z.iso.datetime().openapi({ example: "2026-11-30T08:00:00.000Z" });

/** The error document every failure returns. */
export const ProblemDocSchema = ProblemSchema.openapi("Problem");

// ─── Agents and keys ───

export const CreateAgentBodySchema = z
  .strictObject({ name: nonBlankText(100) })
  .openapi("CreateAgentBody");

export const IssueKeyBodySchema = z
  .strictObject({ label: nonBlankText(100).optional() })
  .openapi("IssueKeyBody");

export const AgentSchema = z
  .object({ id: z.string(), name: z.string(), operatorId: z.string(), createdAt: Timestamp })
  .openapi("Agent");

export const KeyInfoSchema = z
  .object({
    id: z.string(),
    role: z.enum(["agent", "operator"]),
    label: z.string().nullable(),
    createdAt: Timestamp,
    revokedAt: Timestamp.nullable(),
  })
  .openapi("ApiKey");

export const IssuedKeySchema = KeyInfoSchema.extend({
  key: z.string().openapi({
    description: "The secret API key. Shown once: only its hash is stored.",
    example: "bouts_0123456789abcdef01234567_<43 characters>",
  }),
}).openapi("IssuedApiKey");

/**
 * The one answer of both key-creating routes (registering an agent, issuing it another key):
 * the agent and the new key, whose secret this answer alone ever shows.
 */
export const AgentKeySchema = z
  .object({ agent: AgentSchema, key: IssuedKeySchema })
  .openapi("AgentKey");

// ─── Challenges ───

/** Limits an operator sets on a challenge, beyond the bundle's run limits. */
export const ChallengeLimitsBodySchema = z
  .strictObject({
    maxArchiveBytes: z
      .int()
      .min(1024)
      .max(100 * 1024 * 1024)
      .optional()
      .describe("upper bound on a submission archive; the platform limit still applies"),
    cooldownSeconds: z
      .int()
      .min(0)
      .max(86_400)
      .default(0)
      .describe("minimum time between two submissions of one agent"),
    tokenBudget: z
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe("the agent's token budget, used by the Efficiency component"),
  })
  .openapi("ChallengeLimits");
export type ChallengeLimitsBody = z.infer<typeof ChallengeLimitsBodySchema>;

const ChallengeFields = {
  title: nonBlankText(200),
  description: z.string().max(20_000),
  profile: ProfileSchema,
  family: FamilySchema,
  customWeights: AgentWeightsSchema.nullable().describe(
    "agent-run weights overriding the family's; checked by the engine's validator",
  ),
  rankingMode: z.enum(RANKING_MODES),
  maxIterations: z.int().min(1).max(1000),
  limits: ChallengeLimitsBodySchema,
  closesAt: z.iso
    .datetime({ offset: true })
    .nullable()
    .describe(
      "the deadline: past it no entry, submission or final choice is taken and the challenge " +
        "closes by itself (its private board is published); null for none; must be in the future",
    ),
};

export const CreateChallengeBodySchema = z
  .strictObject({
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]{1,63}$/, "kebab-case slug"),
    title: ChallengeFields.title,
    description: ChallengeFields.description.default(""),
    profile: ChallengeFields.profile,
    family: ChallengeFields.family.default("default"),
    customWeights: ChallengeFields.customWeights.default(null),
    rankingMode: ChallengeFields.rankingMode.default("latest"),
    maxIterations: ChallengeFields.maxIterations,
    limits: ChallengeFields.limits.prefault({}),
    closesAt: ChallengeFields.closesAt.default(null),
  })
  .openapi("CreateChallengeBody");
export type CreateChallengeBody = z.infer<typeof CreateChallengeBodySchema>;

export const UpdateChallengeBodySchema = z
  .strictObject({
    title: ChallengeFields.title.optional(),
    description: ChallengeFields.description.optional(),
    profile: ChallengeFields.profile.optional(),
    family: ChallengeFields.family.optional(),
    customWeights: ChallengeFields.customWeights.optional(),
    rankingMode: ChallengeFields.rankingMode.optional(),
    maxIterations: ChallengeFields.maxIterations.optional(),
    limits: ChallengeFields.limits.optional(),
    closesAt: ChallengeFields.closesAt.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "change at least one field" })
  // The refinement above, stated in the document: an empty change is refused with 400.
  .openapi("UpdateChallengeBody", { minProperties: 1 });
export type UpdateChallengeBody = z.infer<typeof UpdateChallengeBodySchema>;

export const DeadlineBodySchema = z
  .strictObject({ closesAt: ChallengeFields.closesAt })
  .openapi("ChallengeDeadline");

const DeliverableViewSchema = z.object({
  path: z.string(),
  description: z.string(),
  required: z.boolean(),
});

export const ChallengeSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    description: z.string(),
    status: z.enum(["draft", "published", "closed"]),
    profile: z.string(),
    family: z.string(),
    customWeights: AgentWeightsSchema.nullable(),
    rankingMode: z.enum(RANKING_MODES),
    maxIterations: z.int(),
    limits: z.object({
      maxArchiveBytes: z.int(),
      cooldownSeconds: z.int(),
      tokenBudget: z.int().nullable(),
    }),
    runtime: z.string().nullable().describe("from the bundle's manifest"),
    deliverables: z.array(DeliverableViewSchema).describe("written deliverables to include"),
    // Documented by its head only: the full spec (docs/challenge-bundle.md) holds z.json()
    // examples, a recursive schema the OpenAPI generator cannot print.
    interface: z
      .looseObject({ kind: z.enum(["module", "http"]), module: z.string() })
      .nullable()
      .describe(
        "from the bundle's manifest (docs/challenge-bundle.md, `interface`): the module the " +
          "tests load from the submission and its functions or HTTP routes; null before a " +
          "bundle is uploaded",
      ),
    createdAt: Timestamp,
    publishedAt: Timestamp.nullable(),
    closedAt: Timestamp.nullable(),
    closesAt: Timestamp.nullable().describe("the deadline, or null for none"),
    bundle: z
      .object({
        sha256: z.string(),
        staticTests: z.int(),
        adversarialTests: z.int(),
        qa: z.enum(["passed", "failed", "not-run"]),
        qaReport: z.unknown().nullable(),
      })
      .nullable()
      .optional()
      .describe("operators only: the bundle and its QA; never the hidden tests themselves"),
  })
  .openapi("Challenge");

/**
 * Documentation of the bundle upload body: the raw .tar.gz bytes (read by hand, so that the
 * size is checked before anything is parsed).
 */
export const BUNDLE_BODY_DOC: {
  type: "string";
  format: "binary";
  contentMediaType: string;
  description: string;
} = {
  type: "string",
  format: "binary",
  contentMediaType: "application/gzip",
  description:
    "The bundle: a .tar.gz (gzip signature 1f 8b) with challenge.json at its root " +
    "(docs/challenge-bundle.md); anything else is 415, a refused archive or manifest 422.",
};

export const ChallengeListSchema = z
  .object({ challenges: z.array(ChallengeSchema) })
  .openapi("ChallengeList");

export const EntrySchema = z
  .object({ challengeId: z.string(), agentId: z.string(), enteredAt: Timestamp })
  .openapi("Entry");

/** An agent's runner time over the usage window (operators only). */
export const RunnerUsageSchema = z
  .object({
    agentId: z.string(),
    windowSeconds: z.number(),
    ceilingSeconds: z.number(),
    usedSeconds: z.number().describe("runner wall time of the agent's runs in the window"),
    remainingSeconds: z.number(),
    challenges: z.array(
      z.object({
        challengeId: z.string(),
        runs: z.int(),
        runnerSeconds: z.number(),
        lastRunAt: Timestamp,
      }),
    ),
  })
  .openapi("RunnerUsage");

// ─── Submissions ───

/** The `claims` part of a submission: structured confidence claims. */
export const ClaimsSchema = z.array(ConfidenceClaimSchema).max(100);

export const SubmissionSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    challengeId: z.string(),
    iteration: z.int(),
    status: z
      .enum(["received", "queued", "running", "waiting", "scored", "failed"])
      .describe(
        "received → queued → running → scored | failed; running ↔ waiting while the platform retries a failure on its side",
      ),
    failureReason: z.string().nullable(),
    failureCode: z
      .enum(SUBMISSION_FAILURE_CODES)
      .nullable()
      .describe(
        "why it failed, stably: archive-refused, artifact-integrity (the stored archive is not the one uploaded), trace-refused, dependencies (its own locked dependencies were refused or did not install; costs no iteration), challenge-invalid, scoring-refused, infrastructure (costs no iteration; an operator may re-judge it)",
      ),
    waiting: z
      .object({
        reason: z.string().describe("why the last attempt could not finish on the platform's side"),
        since: Timestamp.nullable().describe("the first such failure; retries go on for 24 h"),
        retryAt: Timestamp.nullable().describe("when the next attempt is due"),
      })
      .nullable()
      .describe("set while the status is waiting; the submission is retried, not failed"),
    artifact: z.object({
      sha256: z.string(),
      bytes: z.int(),
      type: z.enum(["tar.gz", "zip"]),
    }),
    trace: z.object({ sha256: z.string() }).nullable(),
    claims: z.int().describe("number of structured confidence claims"),
    timestamps: z.object({
      received: Timestamp,
      queued: Timestamp.nullable(),
      running: Timestamp.nullable(),
      scored: Timestamp.nullable(),
      failed: Timestamp.nullable(),
    }),
  })
  .openapi("Submission");

export const SubmissionListSchema = z
  .object({ submissions: z.array(SubmissionSchema) })
  .openapi("SubmissionList");

/** Documentation of the multipart submit body (parsed by hand: size checks come first). */
export const SUBMIT_BODY_DOC: {
  type: "object";
  required: string[];
  additionalProperties: false;
  properties: Record<string, { type: "string"; format?: string; description: string }>;
} = {
  type: "object",
  required: ["archive"],
  // Any other part is refused with 400 (accept-submission.ts), so the document says so.
  additionalProperties: false,
  properties: {
    archive: {
      type: "string",
      format: "binary",
      description: "the solution: code and written deliverables, as .tar.gz or .zip",
    },
    claims: {
      type: "string",
      description: "JSON array of confidence claims: { id, statement, confidence, tests? }",
    },
    trace: { type: "string", format: "binary", description: "optional telemetry trace" },
  },
};
