import { describe, expect, it } from "vitest";
import { mintApiKey, verifyApiKey, type KeyCredentials } from "@bouts/db";

async function agentKey(overrides: Partial<KeyCredentials> = {}) {
  const key = await mintApiKey();
  const row: KeyCredentials = {
    id: key.id,
    role: "agent",
    agentId: "agent-1",
    operatorId: null,
    secretHash: key.secretHash,
    revokedAt: null,
    ...overrides,
  };
  return { token: key.token, row };
}

describe("verifyApiKey", () => {
  it("names the owner of a live key", async () => {
    const { token, row } = await agentKey();
    expect(await verifyApiKey(token, row)).toEqual({
      role: "agent",
      agentId: "agent-1",
      keyId: row.id,
    });
    const op = await agentKey({ role: "operator", agentId: null, operatorId: "op-1" });
    expect(await verifyApiKey(op.token, op.row)).toEqual({
      role: "operator",
      operatorId: "op-1",
      keyId: op.row.id,
    });
  });

  it("refuses a wrong secret, a revoked key, an unknown id and a key without an owner", async () => {
    const { token, row } = await agentKey();
    const other = await mintApiKey();
    expect(await verifyApiKey(other.token, row)).toBeNull();
    expect(await verifyApiKey(token, { ...row, revokedAt: 1 })).toBeNull();
    expect(await verifyApiKey(token, undefined)).toBeNull();
    expect(await verifyApiKey("not-a-key", undefined)).toBeNull();
    expect(await verifyApiKey(token, { ...row, agentId: null })).toBeNull();
  });
});
