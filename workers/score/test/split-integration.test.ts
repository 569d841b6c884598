/**
 * A split challenge through the submissions queue (docs/design.md §29): notes-api with five of
 * its hidden tests declared private, scored by the real runner. Hostile: the stored score, its
 * test counts, the stored run report and the breakdown the owner agent reads through the HTTP
 * API carry no private test id, name, count or duration; the full suite is stored apart.
 */
import { env, exports } from "cloudflare:workers";
import { createMessageBatch, createExecutionContext, getQueueResult } from "cloudflare:test";
import { BreakdownSchema } from "@bouts/contracts";
import { challenges, findScore, fullScores, insertApiKey, testCounts } from "@bouts/db";
import { mintApiKey } from "@bouts/db/keys";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { consumeSubmissions } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const PRIVATE = ["get-note", "unknown-note", "read-after-write", "short-password", "idor"];
const PRIVATE_NAMES = [
  "fetches a note by id",
  "answers 404 for an unknown note",
  "lists notes in creation order across requests",
  "rejects a short password",
  "cannot read another user's note",
];

/** Every private marker found in a JSON text. */
const leaks = (text: string) =>
  [...PRIVATE, ...PRIVATE_NAMES.map((n) => JSON.stringify(n).slice(1, -1))].filter((m) =>
    text.includes(m),
  );

describe("a challenge with a declared private part", () => {
  let challenge: Awaited<ReturnType<typeof seedChallenge>>;
  let agent: string;
  let submission: string;
  let token: string;
  beforeAll(async () => {
    challenge = await seedChallenge("notes-api");
    const row = await db()
      .select()
      .from(challenges)
      .where(eq(challenges.id, challenge.challengeId))
      .get();
    const manifest = JSON.parse(row!.bundleManifest!) as Record<string, unknown>;
    await db()
      .update(challenges)
      .set({ bundleManifest: JSON.stringify({ ...manifest, split: { private: PRIVATE } }) })
      .where(eq(challenges.id, challenge.challengeId));
    agent = await seedAgent(challenge);
    submission = await seedSubmission(challenge, agent, "partial");
    const key = await mintApiKey();
    await insertApiKey(db(), {
      id: key.id,
      role: "agent",
      agentId: agent,
      operatorId: null,
      secretHash: key.secretHash,
      label: "split",
      createdAt: Date.now(),
      revokedAt: null,
    });
    token = key.token;
    const batch = createMessageBatch("bouts-submissions", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: submission } },
    ]);
    const ctx = createExecutionContext();
    await consumeSubmissions(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
  }, 180_000);

  it("ranks and stores the public part only", async () => {
    const score = await findScore(db(), submission);
    const breakdown = BreakdownSchema.parse(JSON.parse(score!.breakdown));
    const staticC = breakdown.components.find((c) => c.key === "static")!;
    expect(JSON.stringify(staticC)).toContain('"total":6');
    const counts = await db()
      .select()
      .from(testCounts)
      .where(eq(testCounts.submissionId, submission))
      .all();
    const total = (suite: string) =>
      counts.filter((c) => c.suite === suite).reduce((n, c) => n + c.total, 0);
    expect(total("static")).toBe(6);
    expect(
      counts.filter((c) => c.bucket.startsWith("prebuilt")).reduce((n, c) => n + c.total, 0),
    ).toBe(5);
    expect(leaks(score!.breakdown)).toEqual([]);
    expect(leaks(score!.input)).toEqual([]);
  });

  it("keeps private results out of the stored run report", async () => {
    const report = await (await env.ARTIFACTS.get(`reports/${submission}.json`))!.text();
    expect(leaks(report)).toEqual([]);
    const full = await (await env.ARTIFACTS.get(`reports-full/${submission}.json`))!.text();
    expect(leaks(full)).toEqual(expect.arrayContaining(PRIVATE));
  });

  it("stores the full suite apart, scored on all ten static tests", async () => {
    const row = await db()
      .select()
      .from(fullScores)
      .where(eq(fullScores.submissionId, submission))
      .get();
    expect(row).toBeDefined();
    expect(
      JSON.stringify(BreakdownSchema.parse(JSON.parse(row!.breakdown)).components[0]),
    ).toContain('"total":10');
  });

  it("shows the owner agent a breakdown with no private id, name or count", async () => {
    for (const auth of [{ authorization: `Bearer ${token}` }, {}]) {
      const res = await exports.default.fetch(
        new Request(`http://bouts.test/v1/submissions/${submission}/breakdown`, { headers: auth }),
      );
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(leaks(text)).toEqual([]);
      expect(text).not.toContain('"total":10');
    }
  });
});
