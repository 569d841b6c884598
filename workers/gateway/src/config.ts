/**
 * @module gateway-worker/config
 * The gateway role's one configuration (docs/design.md §38): the upstream the metering gateway
 * forwards model calls to, its key, its kind, and the call deadline, in one zod schema parsed
 * once per `env` object into a frozen value. Invariants: no upstream configured means the gateway
 * is off (503), never a guess; the upstream's key and AI Gateway's token are secrets, never shown;
 * a malformed value is a `ConfigError` naming the variable.
 */
import { createConfigReader } from "@bouts/edge";
import { z } from "zod";

/** The deadline of one model call when GATEWAY_TIMEOUT_MS is unset: two minutes. */
export const GATEWAY_TIMEOUT_MS_DEFAULT = 120_000;

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** The gateway role's vars and secrets (wrangler.toml `[vars]`, `.dev.vars`, `wrangler secret`). */
export const GatewayConfigSchema = z.object({
  GATEWAY_UPSTREAM_URL: httpUrl
    .optional()
    .describe(
      "the OpenAI-compatible API agents' model calls go to (…/v1, or AI Gateway's …/compat); unset: the gateway is off (503)",
    ),
  GATEWAY_UPSTREAM_KEY: z
    .string()
    .optional()
    .describe(
      "secret: the upstream's API key (Authorization: Bearer); the agent's key is never sent",
    ),
  GATEWAY_UPSTREAM_KIND: z
    .enum(["openai", "ai-gateway"])
    .default("openai")
    .describe(
      "`ai-gateway`: the upstream is Cloudflare AI Gateway; each call names agent and challenge in cf-aig-metadata",
    ),
  GATEWAY_AIG_TOKEN: z
    .string()
    .optional()
    .describe(
      "secret: an authenticated AI Gateway's token (cf-aig-authorization), with GATEWAY_UPSTREAM_KIND=ai-gateway",
    ),
  GATEWAY_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(900_000)
    .default(GATEWAY_TIMEOUT_MS_DEFAULT)
    .describe("deadline of one model call through the gateway, a whole stream included"),
});

/** The gateway settings, typed. */
export interface GatewayConfig {
  /** The upstream's chat-completions URL; null when no upstream is configured (the gateway is off). */
  completionsUrl: string | null;
  upstreamKey: string | undefined;
  kind: "openai" | "ai-gateway";
  aigToken: string | undefined;
  timeoutMs: number;
}

/** Reads the gateway settings from the env, once per env; throws `ConfigError` on a bad value. */
export const readGatewayConfig: (env: object) => Readonly<GatewayConfig> = createConfigReader(
  "gateway",
  GatewayConfigSchema,
  (v) => ({
    completionsUrl: v.GATEWAY_UPSTREAM_URL
      ? `${v.GATEWAY_UPSTREAM_URL.replace(/\/+$/, "")}/chat/completions`
      : null,
    upstreamKey: v.GATEWAY_UPSTREAM_KEY,
    kind: v.GATEWAY_UPSTREAM_KIND,
    aigToken: v.GATEWAY_AIG_TOKEN,
    timeoutMs: v.GATEWAY_TIMEOUT_MS,
  }),
);
