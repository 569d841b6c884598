/**
 * The metadata the metering gateway sends AI Gateway and the score role reads back: at most five
 * string entries; a logged call belongs to an entry only when both of its ids match exactly.
 */
import { describe, expect, it } from "vitest";
import {
  buildGatewayEntryKey,
  buildGatewayMetadata,
  matchesGatewayMetadata,
} from "../src/index.ts";

const entry = { agentId: "agent-1", challengeId: "notes-api" };

describe("the gateway's metadata", () => {
  it("names the agent, the challenge and the entry, in at most five string entries", () => {
    const m = buildGatewayMetadata(entry);
    expect(m).toEqual({
      bouts_agent: "agent-1",
      bouts_challenge: "notes-api",
      bouts_entry: buildGatewayEntryKey(entry),
    });
    expect(Object.keys(m).length).toBeLessThanOrEqual(5);
    expect(Object.values(m).every((v) => typeof v === "string")).toBe(true);
  });

  it("matches a logged call's metadata, as text or parsed, only when both ids are this entry's", () => {
    const m = buildGatewayMetadata(entry);
    expect(matchesGatewayMetadata(JSON.stringify(m), entry)).toBe(true);
    expect(matchesGatewayMetadata(m, entry)).toBe(true);
    for (const other of [
      { ...m, bouts_agent: "agent-2" },
      { ...m, bouts_challenge: "notes-api-2" },
      { bouts_entry: m.bouts_entry },
    ])
      expect(matchesGatewayMetadata(JSON.stringify(other), entry)).toBe(false);
    for (const junk of ["not json", "null", "[]", 7, null, undefined])
      expect(matchesGatewayMetadata(junk, entry)).toBe(false);
  });
});
