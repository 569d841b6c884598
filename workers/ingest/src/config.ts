/**
 * @module ingest/config
 * The ingest role's one configuration (docs/design.md §38): its vars and secret in one zod
 * schema, parsed once per `env` object into a frozen value the code reads as `config.x`.
 * Invariant: a bad value is a deployment error naming the variable (`ConfigError`, answered 500
 * and logged), never a guess.
 */
import { createConfigReader } from "@bouts/edge";
import { MIN_SECRET_LENGTH } from "@bouts/runner-auth";
import { z } from "zod";

const bytes = (description: string) => z.coerce.number().int().positive().describe(description);

/** The ingest role's vars and secrets (wrangler.toml `[vars]`, `.dev.vars`, `wrangler secret`). */
export const IngestConfigSchema = z.object({
  RUNNER_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "the runner's HTTP API (local dev, or a runner on a plain host); unset: the RUNNER Container",
    ),
  RUNNER_SHARED_SECRET: z
    .string()
    .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`)
    .optional()
    .describe(
      "secret: the HMAC key every request to the runner is signed with; unset: unsigned (local only)",
    ),
  MAX_ARCHIVE_BYTES: bytes("largest submission archive (a challenge may lower it)"),
  MAX_TRACE_BYTES: bytes("largest telemetry trace of an agent-profile submission"),
  MAX_CLAIMS_BYTES: bytes("largest claims JSON of a submission"),
  MAX_BUNDLE_BYTES: bytes("largest challenge bundle an operator may upload"),
  IDEMPOTENCY_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(86_400)
    .describe("how long an Idempotency-Key is remembered (at least a day)"),
  RUNNER_SECONDS_PER_AGENT: z.coerce
    .number()
    .int()
    .positive()
    .default(1800)
    .describe("runner time an agent may use over the window, all challenges; spent: 429"),
  RUNNER_USAGE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(3600)
    .describe("the sliding window of RUNNER_SECONDS_PER_AGENT"),
  MAX_SUBMISSIONS_IN_FLIGHT: z.coerce
    .number()
    .int()
    .positive()
    .default(4)
    .describe("submissions an agent may have received, queued or running at once; one more: 429"),
});

/** The ingest settings, typed. */
export type IngestConfig = {
  /** The runner's URL without a trailing slash; "" for the RUNNER Container. */
  runnerUrl: string;
  runnerSharedSecret: string | undefined;
  maxArchiveBytes: number;
  maxTraceBytes: number;
  maxClaimsBytes: number;
  maxBundleBytes: number;
  idempotencyTtlMs: number;
  /** Runner time an agent may use over `runnerWindowMs`, across all challenges. */
  runnerCeilingMs: number;
  runnerWindowMs: number;
  /** Submissions an agent may have received, queued or running at once, all challenges. */
  maxSubmissionsInFlight: number;
};

/** Reads the settings from the Worker's env, once per env; throws `ConfigError` on a bad value. */
export const readConfig: (env: object) => Readonly<IngestConfig> = createConfigReader(
  "ingest",
  IngestConfigSchema,
  (v) => ({
    runnerUrl: (v.RUNNER_URL ?? "").replace(/\/+$/, ""),
    runnerSharedSecret: v.RUNNER_SHARED_SECRET,
    maxArchiveBytes: v.MAX_ARCHIVE_BYTES,
    maxTraceBytes: v.MAX_TRACE_BYTES,
    maxClaimsBytes: v.MAX_CLAIMS_BYTES,
    maxBundleBytes: v.MAX_BUNDLE_BYTES,
    idempotencyTtlMs: v.IDEMPOTENCY_TTL_SECONDS * 1000,
    runnerCeilingMs: v.RUNNER_SECONDS_PER_AGENT * 1000,
    runnerWindowMs: v.RUNNER_USAGE_WINDOW_SECONDS * 1000,
    maxSubmissionsInFlight: v.MAX_SUBMISSIONS_IN_FLIGHT,
  }),
);
