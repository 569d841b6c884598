/**
 * @module webhooks-worker/config
 * The webhooks role's one configuration (docs/design.md §38): one zod schema, parsed once per
 * `env` object into a frozen value. Invariants: loopback receivers are allowed only when
 * `WEBHOOKS_ALLOW_LOOPBACK` is "true" — a local-development switch, "false" in wrangler.toml at
 * the top level and in production — and then only on the ports of `WEBHOOKS_LOOPBACK_PORTS`,
 * never on the platform's own port (the one of `WEBHOOKS_LINK_ORIGIN`) or the runner's
 * (`RUNNER_URL`); a malformed value is a `ConfigError` naming it, never a fallback.
 */
import { createConfigReader } from "@bouts/edge";
import { z } from "zod";

const DEFAULT_LINK_ORIGIN = "https://api.bouts.dev";
/** The loopback ports allowed when `WEBHOOKS_LOOPBACK_PORTS` is unset. */
export const DEFAULT_LOOPBACK_PORTS = { min: 9700, max: 9799 } as const;

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** The webhooks role's vars (wrangler.toml `[vars]`, `.dev.vars`). */
export const WebhooksConfigSchema = z.object({
  WEBHOOKS_ALLOW_LOOPBACK: z
    .enum(["true", "false"])
    .default("false")
    .describe(
      'local development only: "true" admits receivers on 127.0.0.1, [::1] and localhost (docs/webhooks.md)',
    ),
  WEBHOOKS_LINK_ORIGIN: httpUrl
    .default(DEFAULT_LINK_ORIGIN)
    .describe(
      "origin of the links in payloads (breakdownUrl …); production derives it from BOUTS_PUBLIC_HOST",
    ),
  WEBHOOKS_LOOPBACK_PORTS: z
    .string()
    .regex(/^\s*\d{1,5}\s*-\s*\d{1,5}\s*$/, 'must be a port range "min-max"')
    .transform((s) => s.split("-").map((p) => Number(p.trim())) as [number, number])
    .refine(([min, max]) => min >= 1 && max <= 65535 && min <= max, {
      message: "must be a range of ports 1–65535 with min ≤ max",
    })
    .prefault(`${DEFAULT_LOOPBACK_PORTS.min}-${DEFAULT_LOOPBACK_PORTS.max}`)
    .describe("the loopback ports local receivers may use, with WEBHOOKS_ALLOW_LOOPBACK on"),
  RUNNER_URL: httpUrl
    .optional()
    .describe("the runner's HTTP API in local development: its port is never a webhook target"),
});

/** The vars the webhook role reads, as the env carries them. */
export type WebhooksVars = { [K in keyof z.input<typeof WebhooksConfigSchema>]?: string };

/**
 * The options `validateTargetUrl` takes (@bouts/webhooks `TargetUrlOptions`), restated
 * structurally: the repository's scripts read this module (scripts/lib/role-configs.ts), and the
 * package's entry pulls in Workers-only types they cannot resolve.
 */
export interface TargetOptions {
  allowLoopback: boolean;
  loopbackPorts?: { min: number; max: number; blocked: readonly number[] };
  blockedHosts?: readonly string[];
}

/** The webhook settings, typed. */
export interface WebhooksConfig {
  /** The origin of links in payloads (`breakdownUrl` …), without a trailing slash. */
  linkOrigin: string;
  /**
   * The target-URL options: loopback only behind the development switch and on the allowed
   * ports, and the platform's own host blocked so a webhook can never make the platform call
   * itself.
   */
  targetOptions: TargetOptions;
}

/** Reads the webhook settings from the env, once per env; throws `ConfigError` on a bad value. */
export const readWebhooksConfig: (env: object) => Readonly<WebhooksConfig> = createConfigReader(
  "webhooks",
  WebhooksConfigSchema,
  (v) => {
    const linkOrigin = v.WEBHOOKS_LINK_ORIGIN.replace(/\/+$/, "");
    const host = new URL(linkOrigin).hostname;
    // An IP or localhost origin (local development) is covered by the loopback rules already.
    const named = /[a-z]/i.test(host) && host !== "localhost" && !host.includes(":");
    const allowLoopback = v.WEBHOOKS_ALLOW_LOOPBACK === "true";
    const [min, max] = v.WEBHOOKS_LOOPBACK_PORTS;
    const blocked = [linkOrigin, v.RUNNER_URL ?? ""]
      .map(portOf)
      .filter((p): p is number => p !== null);
    const loopbackPorts = Object.freeze({ min, max, blocked });
    return {
      linkOrigin,
      targetOptions: Object.freeze({
        allowLoopback,
        ...(allowLoopback ? { loopbackPorts } : {}),
        ...(named ? { blockedHosts: [host] } : {}),
      }),
    };
  },
);

/** The origin of links in payloads (`breakdownUrl` …), without a trailing slash. */
export function resolveLinkOrigin(env: object): string {
  return readWebhooksConfig(env).linkOrigin;
}

/** The target-URL options of this deployment (`WebhooksConfig.targetOptions`). */
export function resolveTargetOptions(env: object): TargetOptions {
  return readWebhooksConfig(env).targetOptions;
}

function portOf(origin: string): number | null {
  try {
    const url = new URL(origin);
    if (url.port !== "") return Number(url.port);
    return url.protocol === "https:" ? 443 : url.protocol === "http:" ? 80 : null;
  } catch {
    return null;
  }
}
