/**
 * Every role's one configuration schema (docs/design.md §38), in one list: `npm run
 * docs:config` writes docs/deploy.md's table of variables from it, and `deploy:check` parses
 * production's vars with the Workers' schemas, as each role will at its first request.
 */
import type { z } from "zod";
import { RunnerEnvSchema } from "../../containers/runner/src/config.ts";
import { GatewayConfigSchema } from "../../workers/gateway/src/config.ts";
import { IngestConfigSchema } from "../../workers/ingest/src/config.ts";
import { PlatformConfigSchema } from "../../workers/platform/src/config.ts";
import { ScoreConfigSchema } from "../../workers/score/src/config.ts";
import { WebhooksConfigSchema } from "../../workers/webhooks/src/config.ts";

export interface RoleConfig {
  role: string;
  /** Where the schema lives. */
  file: string;
  schema: z.ZodObject;
  /** The prefix of the environment variable names (the runner's schema keys omit RUNNER_). */
  prefix: string;
}

/** The Worker's roles, whose vars come from wrangler.toml and `wrangler secret`. */
export const WORKER_CONFIGS: readonly RoleConfig[] = [
  { role: "ingest", file: "workers/ingest/src/config.ts", schema: IngestConfigSchema, prefix: "" },
  { role: "score", file: "workers/score/src/config.ts", schema: ScoreConfigSchema, prefix: "" },
  {
    role: "webhooks",
    file: "workers/webhooks/src/config.ts",
    schema: WebhooksConfigSchema,
    prefix: "",
  },
  {
    role: "gateway",
    file: "workers/gateway/src/config.ts",
    schema: GatewayConfigSchema,
    prefix: "",
  },
  {
    role: "platform",
    file: "workers/platform/src/config.ts",
    schema: PlatformConfigSchema,
    prefix: "",
  },
];

/** The runner's, from its process environment (docs/runner.md). */
export const RUNNER_CONFIG: RoleConfig = {
  role: "runner",
  file: "containers/runner/src/config.ts",
  schema: RunnerEnvSchema,
  prefix: "RUNNER_",
};
