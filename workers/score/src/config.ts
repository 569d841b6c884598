/**
 * @module score/config
 * The score role's one configuration (docs/design.md §38): the runner client's, the judge
 * panel's, the test generator's and the observed-usage reader's vars and secrets in one zod
 * schema, parsed once per `env` object into a frozen value. Invariant: a bad value, or a mode
 * without what it needs, is a `ConfigError` naming the variable, raised at the batch's start
 * (index.ts), never a guess; only what depends on a binding (the AI binding of the workers-ai
 * modes) is checked where it is used.
 */
import { createConfigReader } from "@bouts/edge";
import { MIN_SECRET_LENGTH } from "@bouts/runner-auth";
import { z } from "zod";

/** A runner call's deadline when RUNNER_TIMEOUT_MS is unset: shorter than the 15-minute lease. */
export const RUNNER_TIMEOUT_MS_DEFAULT = 10 * 60 * 1000;
/** Cloudflare's API, where AI Gateway's logs are read (GATEWAY_LOGS_API_URL's default). */
export const CLOUDFLARE_API_URL = "https://api.cloudflare.com/client/v4";
/** The most judges a panel seats. */
export const MAX_JUDGE_MODELS = 5;

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const ms = (def: number, description: string) =>
  z.coerce.number().int().min(1).max(3_600_000).default(def).describe(description);
const secret = (description: string) =>
  z
    .string()
    .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`)
    .optional()
    .describe(description);

/** The score role's vars and secrets (wrangler.toml `[vars]`, `.dev.vars`, `wrangler secret`). */
export const ScoreConfigSchema = z
  .object({
    RUNNER_URL: httpUrl
      .optional()
      .describe(
        "the runner's HTTP API (local dev, or a runner on a plain host); unset: the RUNNER Container",
      ),
    RUNNER_SHARED_SECRET: secret(
      "secret: the HMAC key every runner request is signed with; unset: unsigned (local only)",
    ),
    RUNNER_TIMEOUT_MS: ms(RUNNER_TIMEOUT_MS_DEFAULT, "deadline of one runner call"),
    JUDGE_MODE: z
      .enum(["offline", "openai", "workers-ai"])
      .default("offline")
      .describe("the judge panel: offline heuristics, an OpenAI-compatible API or Workers AI"),
    JUDGE_MODELS: z
      .string()
      .transform((s) =>
        s
          .split(",")
          .map((m) => m.trim())
          .filter(Boolean),
      )
      .refine((list) => list.length <= MAX_JUDGE_MODELS, {
        message: `must name at most ${MAX_JUDGE_MODELS} models`,
      })
      .optional()
      .describe("comma-separated model ids, one judge each; required unless JUDGE_MODE is offline"),
    JUDGE_OPENAI_BASE_URL: httpUrl
      .optional()
      .describe("the OpenAI-compatible API of JUDGE_MODE=openai (…/v1)"),
    JUDGE_OPENAI_API_KEY: z.string().optional().describe("secret: that API's key"),
    JUDGE_TIMEOUT_MS: ms(30_000, "deadline of one judge's answer"),
    GENERATOR_MODE: z
      .enum(["deterministic", "openai", "workers-ai"])
      .default("deterministic")
      .describe(
        "generated tests: deterministic only, or a model's too (docs/adversarial-generation.md)",
      ),
    GENERATOR_MODEL: z
      .string()
      .optional()
      .describe("the test generator's model id; required unless GENERATOR_MODE is deterministic"),
    GENERATOR_OPENAI_BASE_URL: httpUrl
      .optional()
      .describe("the OpenAI-compatible API of GENERATOR_MODE=openai (…/v1)"),
    GENERATOR_OPENAI_API_KEY: z.string().optional().describe("secret: that API's key"),
    GENERATOR_TIMEOUT_MS: ms(60_000, "deadline of the model generator's answer"),
    GENERATION_SECRET: secret(
      "secret: keys the draw of generated tests (design.md §31); unset: runs wait on a configuration error",
    ),
    GATEWAY_USAGE_SOURCE: z
      .enum(["none", "gateway", "ai-gateway"])
      .default("none")
      .describe(
        "where observed model usage is read: nowhere, the gateway's D1 record, or AI Gateway's logs (docs/gateway.md)",
      ),
    GATEWAY_LOGS_API_URL: httpUrl
      .default(CLOUDFLARE_API_URL)
      .describe("the Cloudflare API that AI Gateway's logs are read from"),
    GATEWAY_LOGS_ACCOUNT_ID: z
      .string()
      .regex(/^[A-Za-z0-9]{1,64}$/, "must be a Cloudflare account id")
      .optional()
      .describe("the AI Gateway's account id; required with GATEWAY_USAGE_SOURCE=ai-gateway"),
    GATEWAY_LOGS_GATEWAY_ID: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be a gateway id (at most 64 characters)")
      .optional()
      .describe("the AI Gateway's id; required with GATEWAY_USAGE_SOURCE=ai-gateway"),
    GATEWAY_LOGS_API_TOKEN: z
      .string()
      .optional()
      .describe("secret: a Cloudflare API token with AI Gateway Read, for its logs"),
  })
  .check((ctx) => {
    const v = ctx.value;
    const need = (when: boolean, path: string, message: string) => {
      if (when) ctx.issues.push({ code: "custom", path: [path], message, input: undefined });
    };
    need(
      v.JUDGE_MODE !== "offline" && (v.JUDGE_MODELS ?? []).length === 0,
      "JUDGE_MODELS",
      `required with JUDGE_MODE=${v.JUDGE_MODE}`,
    );
    need(
      v.JUDGE_MODE === "openai" && !v.JUDGE_OPENAI_BASE_URL,
      "JUDGE_OPENAI_BASE_URL",
      "required with JUDGE_MODE=openai",
    );
    need(
      v.GENERATOR_MODE !== "deterministic" && !v.GENERATOR_MODEL,
      "GENERATOR_MODEL",
      `required with GENERATOR_MODE=${v.GENERATOR_MODE}`,
    );
    need(
      v.GENERATOR_MODE === "openai" && !v.GENERATOR_OPENAI_BASE_URL,
      "GENERATOR_OPENAI_BASE_URL",
      "required with GENERATOR_MODE=openai",
    );
    for (const name of [
      "GATEWAY_LOGS_ACCOUNT_ID",
      "GATEWAY_LOGS_GATEWAY_ID",
      "GATEWAY_LOGS_API_TOKEN",
    ] as const)
      need(
        v.GATEWAY_USAGE_SOURCE === "ai-gateway" && !v[name],
        name,
        "required with GATEWAY_USAGE_SOURCE=ai-gateway",
      );
  });

type Vars = z.output<typeof ScoreConfigSchema>;

/** The score settings, typed. */
export interface ScoreConfig {
  runner: {
    /** Without a trailing slash; "" when the runner is the RUNNER Container. */
    url: string;
    sharedSecret: string | undefined;
    timeoutMs: number;
  };
  judges: {
    mode: Vars["JUDGE_MODE"];
    models: string[];
    openAiBaseUrl: string | undefined;
    openAiApiKey: string | undefined;
    timeoutMs: number;
  };
  generator: {
    mode: Vars["GENERATOR_MODE"];
    model: string | undefined;
    openAiBaseUrl: string | undefined;
    openAiApiKey: string | undefined;
    timeoutMs: number;
  };
  generationSecret: string | undefined;
  /** Where observed model usage is read (docs/gateway.md, "The score role's reader"). */
  observedUsage: {
    source: Vars["GATEWAY_USAGE_SOURCE"];
    /** Without a trailing slash. */
    logsApiUrl: string;
    accountId: string | undefined;
    gatewayId: string | undefined;
    apiToken: string | undefined;
  };
}

/** Reads the score settings from the env, once per env; throws `ConfigError` on a bad value. */
export const readScoreConfig: (env: object) => Readonly<ScoreConfig> = createConfigReader(
  "score",
  ScoreConfigSchema,
  (v) => ({
    runner: Object.freeze({
      url: (v.RUNNER_URL ?? "").replace(/\/+$/, ""),
      sharedSecret: v.RUNNER_SHARED_SECRET,
      timeoutMs: v.RUNNER_TIMEOUT_MS,
    }),
    judges: Object.freeze({
      mode: v.JUDGE_MODE,
      models: Object.freeze(v.JUDGE_MODELS ?? []) as string[],
      openAiBaseUrl: v.JUDGE_OPENAI_BASE_URL,
      openAiApiKey: v.JUDGE_OPENAI_API_KEY,
      timeoutMs: v.JUDGE_TIMEOUT_MS,
    }),
    generator: Object.freeze({
      mode: v.GENERATOR_MODE,
      model: v.GENERATOR_MODEL,
      openAiBaseUrl: v.GENERATOR_OPENAI_BASE_URL,
      openAiApiKey: v.GENERATOR_OPENAI_API_KEY,
      timeoutMs: v.GENERATOR_TIMEOUT_MS,
    }),
    generationSecret: v.GENERATION_SECRET,
    observedUsage: Object.freeze({
      source: v.GATEWAY_USAGE_SOURCE,
      logsApiUrl: v.GATEWAY_LOGS_API_URL.replace(/\/+$/, ""),
      accountId: v.GATEWAY_LOGS_ACCOUNT_ID,
      gatewayId: v.GATEWAY_LOGS_GATEWAY_ID,
      apiToken: v.GATEWAY_LOGS_API_TOKEN,
    }),
  }),
);
