/**
 * Proves the idempotency records against a real D1: a refusal's answer is recorded once and
 * kept while the record lives (a second writer does not overwrite it); an expired record, or an
 * in-flight claim past its lease whose submission was never written, is taken over; a release
 * drops only the claim of the request that made it; the purge deletes exactly the expired
 * records, at any count.
 */
import { describe, expect, it } from "vitest";
import {
  findIdempotencyRecord,
  insertSubmission,
  purgeExpiredIdempotencyKeys,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
} from "../src/index.ts";
import { OPEN_GUARD, T0, rows, seedEntrant, submissionRow, testDb } from "./seed.ts";

const db = testDb();
const DAY = 86_400_000;

const answer = (agentId: string, key: string, now: number, status = 409) => ({
  agentId,
  key,
  requestHash: `hash-${status}`,
  status,
  body: `{"status":${status}}`,
  now,
  expiresAt: now + DAY,
});

describe("recordIdempotentAnswer", () => {
  it("records a final answer once; a second answer under the live key changes nothing", async () => {
    const { agentId } = await seedEntrant(db);
    expect(await recordIdempotentAnswer(db, answer(agentId, "k1", T0, 409))).toBe(true);
    expect(await recordIdempotentAnswer(db, answer(agentId, "k1", T0 + 1, 429))).toBe(false);
    expect(await findIdempotencyRecord(db, agentId, "k1")).toEqual({
      agentId,
      key: "k1",
      requestHash: "hash-409",
      state: "done",
      submissionId: null,
      responseStatus: 409,
      responseBody: '{"status":409}',
      createdAt: T0,
      leaseUntil: T0,
      expiresAt: T0 + DAY,
    });
  });

  it("replaces a record once it expired, and keeps keys apart per agent", async () => {
    const a = await seedEntrant(db);
    const b = await seedEntrant(db);
    await recordIdempotentAnswer(db, answer(a.agentId, "k2", T0, 409));
    // The same key of another agent is its own record.
    expect(await recordIdempotentAnswer(db, answer(b.agentId, "k2", T0, 422))).toBe(true);
    // Expiry is exclusive: at exactly expires_at the record still holds.
    expect(await recordIdempotentAnswer(db, answer(a.agentId, "k2", T0 + DAY, 429))).toBe(false);
    expect(await recordIdempotentAnswer(db, answer(a.agentId, "k2", T0 + DAY + 1, 429))).toBe(true);
    expect((await findIdempotencyRecord(db, a.agentId, "k2"))?.responseStatus).toBe(429);
    expect((await findIdempotencyRecord(db, b.agentId, "k2"))?.responseStatus).toBe(422);
  });

  it("does not take over an in-flight claim whose submission exists, even past its lease", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const row = submissionRow(agentId, challengeId);
    await insertSubmission(db, row, OPEN_GUARD, {
      agentId,
      key: "k3",
      requestHash: "h",
      leaseUntil: T0 + 10,
      expiresAt: T0 + DAY,
    });
    expect(await recordIdempotentAnswer(db, answer(agentId, "k3", T0 + 20))).toBe(false);
    expect(await findIdempotencyRecord(db, agentId, "k3")).toMatchObject({
      state: "in-flight",
      submissionId: row.id,
    });
  });
});

describe("releaseIdempotencyKey", () => {
  it("drops only the in-flight claim that names the request's submission", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const row = submissionRow(agentId, challengeId);
    const claim = {
      agentId,
      key: "k4",
      requestHash: "h",
      leaseUntil: T0 + 10,
      expiresAt: T0 + DAY,
    };
    await insertSubmission(db, row, OPEN_GUARD, claim);
    await releaseIdempotencyKey(db, agentId, "k4", "another-submission");
    expect(await findIdempotencyRecord(db, agentId, "k4")).toBeDefined();
    await releaseIdempotencyKey(db, agentId, "k4", row.id);
    expect(await findIdempotencyRecord(db, agentId, "k4")).toBeUndefined();

    // A done record is an answer, not a claim: it stays.
    await recordIdempotentAnswer(db, answer(agentId, "k5", T0));
    await releaseIdempotencyKey(db, agentId, "k5", "");
    expect(await findIdempotencyRecord(db, agentId, "k5")).toBeDefined();
  });
});

describe("purgeExpiredIdempotencyKeys", () => {
  it("deletes exactly the records that expired before now, 150 of them in one call", async () => {
    const { agentId } = await seedEntrant(db);
    const base = T0 + 100 * DAY;
    for (let i = 0; i < 160; i++) {
      await recordIdempotentAnswer(db, {
        ...answer(agentId, `p${i}`, base + i),
        expiresAt: base + i,
      });
    }
    const before = await rows<{ n: number }>("SELECT COUNT(*) AS n FROM idempotency_keys");
    // Records of the other tests expire long before `base`: they go too.
    const older = (before[0]?.n ?? 0) - 160;
    expect(await purgeExpiredIdempotencyKeys(db, base + 150)).toBe(older + 150);
    const left = await rows<{ key: string }>(
      "SELECT key FROM idempotency_keys WHERE agent_id = ?1 ORDER BY expires_at",
      agentId,
    );
    expect(left.map((r) => r.key)).toEqual(Array.from({ length: 10 }, (_, i) => `p${150 + i}`));
    expect(await purgeExpiredIdempotencyKeys(db, base + 150)).toBe(0);
  });
});
