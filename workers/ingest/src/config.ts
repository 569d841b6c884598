/**
 * @module ingest/config
 * The Worker's vars (wrangler.toml [vars], .dev.vars), parsed with a schema once per `env`
 * object (vars do not change while an isolate lives). Invariant: a bad value is a deployment
 * error, reported as such, never a guess.
 */
import { z } from "zod";

const ConfigSchema = z.object({
  RUNNER_URL: z.string().default(""),
  MAX_ARCHIVE_BYTES: z.coerce.number().int().positive(),
  MAX_TRACE_BYTES: z.coerce.number().int().positive(),
  MAX_CLAIMS_BYTES: z.coerce.number().int().positive(),
  MAX_BUNDLE_BYTES: z.coerce.number().int().positive(),
  IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().min(86_400),
  RUNNER_SECONDS_PER_AGENT: z.coerce.number().int().positive().default(1800),
  RUNNER_USAGE_WINDOW_SECONDS: z.coerce.number().int().min(60).default(3600),
  MAX_SUBMISSIONS_IN_FLIGHT: z.coerce.number().int().positive().default(4),
});

/** The ingest settings, typed. */
export type IngestConfig = {
  runnerUrl: string;
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

const PARSED = new WeakMap<Env, IngestConfig>();

/** Reads the settings from the Worker's env; throws on a misconfigured deployment. */
export function readConfig(env: Env): IngestConfig {
  let cfg = PARSED.get(env);
  if (!cfg) {
    cfg = parseConfig(env);
    PARSED.set(env, cfg);
  }
  return cfg;
}

function parseConfig(env: Env): IngestConfig {
  const v = ConfigSchema.parse(env);
  return {
    runnerUrl: v.RUNNER_URL.replace(/\/+$/, ""),
    maxArchiveBytes: v.MAX_ARCHIVE_BYTES,
    maxTraceBytes: v.MAX_TRACE_BYTES,
    maxClaimsBytes: v.MAX_CLAIMS_BYTES,
    maxBundleBytes: v.MAX_BUNDLE_BYTES,
    idempotencyTtlMs: v.IDEMPOTENCY_TTL_SECONDS * 1000,
    runnerCeilingMs: v.RUNNER_SECONDS_PER_AGENT * 1000,
    runnerWindowMs: v.RUNNER_USAGE_WINDOW_SECONDS * 1000,
    maxSubmissionsInFlight: v.MAX_SUBMISSIONS_IN_FLIGHT,
  };
}
