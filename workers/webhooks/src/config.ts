/**
 * @module webhooks-worker/config
 * Reads the webhook vars once per use. Invariants: loopback receivers are allowed only when
 * `WEBHOOKS_ALLOW_LOOPBACK` is exactly "true" — a local-development switch, "false" in
 * wrangler.toml at the top level and in production — and then only on the ports of
 * `WEBHOOKS_LOOPBACK_PORTS` (default 9700–9799), never on the platform's own port (the one of
 * `WEBHOOKS_LINK_ORIGIN`) or the runner's (`RUNNER_URL`).
 */
import type { LoopbackPortRule, TargetUrlOptions } from "@bouts/webhooks";

/** The vars the webhook role reads. */
export interface WebhooksVars {
  WEBHOOKS_ALLOW_LOOPBACK?: string;
  WEBHOOKS_LINK_ORIGIN?: string;
  /** "min-max": the loopback ports local receivers may use (with the switch on). */
  WEBHOOKS_LOOPBACK_PORTS?: string;
  /** The runner's control API in local development; its port is never a target. */
  RUNNER_URL?: string;
}

const DEFAULT_LINK_ORIGIN = "https://api.bouts.dev";
/** The loopback ports allowed when `WEBHOOKS_LOOPBACK_PORTS` is unset or malformed. */
export const DEFAULT_LOOPBACK_PORTS = { min: 9700, max: 9799 } as const;

/** The origin of links in payloads (`breakdownUrl` …), without a trailing slash. */
export function resolveLinkOrigin(vars: WebhooksVars): string {
  const origin = vars.WEBHOOKS_LINK_ORIGIN?.trim() || DEFAULT_LINK_ORIGIN;
  return origin.replace(/\/+$/, "");
}

/**
 * The target-URL options: loopback only behind the development switch and on the allowed
 * ports, and the platform's own host blocked so a webhook can never make the platform call
 * itself.
 */
export function resolveTargetOptions(vars: WebhooksVars): TargetUrlOptions {
  const host = new URL(resolveLinkOrigin(vars)).hostname;
  // An IP or localhost origin (local development) is covered by the loopback rules already.
  const named = /[a-z]/i.test(host) && host !== "localhost" && !host.includes(":");
  const allowLoopback = vars.WEBHOOKS_ALLOW_LOOPBACK === "true";
  return {
    allowLoopback,
    ...(allowLoopback ? { loopbackPorts: resolveLoopbackPorts(vars) } : {}),
    ...(named ? { blockedHosts: [host] } : {}),
  };
}

/** The loopback port rule: the configured range minus the platform's and the runner's ports. */
export function resolveLoopbackPorts(vars: WebhooksVars): LoopbackPortRule {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(vars.WEBHOOKS_LOOPBACK_PORTS ?? "");
  const [min, max] = m ? [Number(m[1]), Number(m[2])] : [0, -1];
  const range =
    min >= 1 && max <= 65535 && min <= max ? { min, max } : { ...DEFAULT_LOOPBACK_PORTS };
  const blocked = [resolveLinkOrigin(vars), vars.RUNNER_URL ?? ""]
    .map(portOf)
    .filter((p): p is number => p !== null);
  return { ...range, blocked };
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
