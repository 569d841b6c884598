/**
 * @module contracts/gateway-metadata
 * The custom metadata the metering gateway attaches to every model call it sends through
 * Cloudflare AI Gateway (`cf-aig-metadata`), and the test the score role's log reader applies to
 * a logged call: one shape, written by the gateway role and read by the score role
 * (docs/gateway.md). Invariants: three entries (AI Gateway keeps at most five per request), all
 * strings; a logged call belongs to an entry only when both ids match exactly.
 */

/** The metadata of one call: the agent, the challenge, and the entry (both, for one filter). */
export interface GatewayMetadata {
  bouts_agent: string;
  bouts_challenge: string;
  bouts_entry: string;
}

/** Whose calls: an agent on a challenge. */
export interface GatewayEntry {
  agentId: string;
  challengeId: string;
}

/** The entry's key, the value the log reader filters on: `<agentId>/<challengeId>`. */
export function buildGatewayEntryKey(e: GatewayEntry): string {
  return `${e.agentId}/${e.challengeId}`;
}

/** The metadata of a call made by `e.agentId` on `e.challengeId`. */
export function buildGatewayMetadata(e: GatewayEntry): GatewayMetadata {
  return {
    bouts_agent: e.agentId,
    bouts_challenge: e.challengeId,
    bouts_entry: buildGatewayEntryKey(e),
  };
}

/**
 * Whether a logged call's metadata (AI Gateway's logs give it as JSON text) names exactly this
 * entry; anything unreadable does not.
 */
export function matchesGatewayMetadata(metadata: unknown, e: GatewayEntry): boolean {
  let value: unknown = metadata;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return false;
    }
  }
  if (typeof value !== "object" || value === null) return false;
  const m = value as Record<string, unknown>;
  return m["bouts_agent"] === e.agentId && m["bouts_challenge"] === e.challengeId;
}
