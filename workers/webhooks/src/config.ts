/**
 * @module webhooks-worker/config
 * Reads the webhook vars once per use. Invariant: loopback receivers are allowed only when
 * `WEBHOOKS_ALLOW_LOOPBACK` is exactly "true" — a local-development switch, "false" in
 * wrangler.toml at the top level and in production.
 */
import type { TargetUrlOptions } from "@bouts/webhooks";

/** The vars the webhook role reads. */
export interface WebhooksVars {
  WEBHOOKS_ALLOW_LOOPBACK?: string;
  WEBHOOKS_LINK_ORIGIN?: string;
}

const DEFAULT_LINK_ORIGIN = "https://api.bouts.dev";

/** The origin of links in payloads (`breakdownUrl` …), without a trailing slash. */
export function resolveLinkOrigin(vars: WebhooksVars): string {
  const origin = vars.WEBHOOKS_LINK_ORIGIN?.trim() || DEFAULT_LINK_ORIGIN;
  return origin.replace(/\/+$/, "");
}

/**
 * The target-URL options: loopback only behind the development switch, and the platform's own
 * host blocked so a webhook can never make the platform call itself.
 */
export function resolveTargetOptions(vars: WebhooksVars): TargetUrlOptions {
  const host = new URL(resolveLinkOrigin(vars)).hostname;
  // An IP or localhost origin (local development) is covered by the loopback rules already.
  const named = /[a-z]/i.test(host) && host !== "localhost" && !host.includes(":");
  return {
    allowLoopback: vars.WEBHOOKS_ALLOW_LOOPBACK === "true",
    ...(named ? { blockedHosts: [host] } : {}),
  };
}
