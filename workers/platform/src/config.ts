/**
 * @module platform/config
 * The platform Worker's own configuration (docs/design.md §38): what it reads itself, beside
 * each role's (ingest, score, webhooks: their `config.ts`). One zod schema, parsed once per
 * `env` object into a frozen value; a bad value is a `ConfigError` naming the variable.
 */
import { createConfigReader } from "@bouts/edge";
import { MIN_SECRET_LENGTH } from "@bouts/runner-auth";
import { z } from "zod";

/** The platform Worker's own secrets. */
export const PlatformConfigSchema = z.object({
  RUNNER_SHARED_SECRET: z
    .string()
    .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`)
    .optional()
    .describe(
      "secret: handed to the RUNNER Container, which refuses to start without it (production)",
    ),
});

/** The platform settings, typed. */
export interface PlatformConfig {
  runnerSharedSecret: string | undefined;
}

/** Reads the platform settings from the env, once per env; throws `ConfigError` on a bad value. */
export const readPlatformConfig: (env: object) => Readonly<PlatformConfig> = createConfigReader(
  "platform",
  PlatformConfigSchema,
  (v) => ({ runnerSharedSecret: v.RUNNER_SHARED_SECRET }),
);
