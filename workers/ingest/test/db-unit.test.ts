import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  createDb,
  findSubmission,
  purgeExpiredIdempotencyKeys,
  transitionSubmission,
} from "@bouts/db";
import {
  call,
  createAgent,
  publishedChallenge,
  seedOperator,
  submissionForm,
  submit,
  tarGz,
} from "./helpers.ts";

async function oneSubmission(slug: string) {
  const op = await seedOperator();
  const agent = await createAgent(op.token);
  const id = await publishedChallenge(op.token, slug);
  await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token });
  const archive = await tarGz({ "a.js": slug });
  const res = await submit(id, agent.token, submissionForm(archive), { "Idempotency-Key": slug });
  return { agentId: agent.id, submissionId: (await res.json<{ id: string }>()).id };
}

describe("submission lifecycle in D1", () => {
  it("moves forward only, stamping each status's time", async () => {
    const db = createDb(env.DB);
    const { submissionId } = await oneSubmission("life-a");
    expect(await transitionSubmission(db, submissionId, "scored", 1)).toBe(false);
    expect(await transitionSubmission(db, submissionId, "running", 2)).toBe(true);
    expect(await transitionSubmission(db, submissionId, "queued", 3)).toBe(false);
    expect(await transitionSubmission(db, submissionId, "scored", 4)).toBe(true);
    expect(await transitionSubmission(db, submissionId, "failed", 5, "late")).toBe(false);
    expect(await findSubmission(db, submissionId)).toMatchObject({
      status: "scored",
      runningAt: 2,
      scoredAt: 4,
      failedAt: null,
    });
  });

  it("records a failure with its reason", async () => {
    const db = createDb(env.DB);
    const { submissionId } = await oneSubmission("life-b");
    expect(await transitionSubmission(db, submissionId, "failed", 9, "runner timed out")).toBe(
      true,
    );
    expect(await findSubmission(db, submissionId)).toMatchObject({
      status: "failed",
      failureReason: "runner timed out",
      failedAt: 9,
    });
  });
});

describe("idempotency records", () => {
  it("are purged only once expired", async () => {
    const db = createDb(env.DB);
    await oneSubmission("purge-a");
    const row = await env.DB.prepare(
      "SELECT MIN(expires_at) AS first, MAX(expires_at) AS last FROM idempotency_keys",
    ).first<{ first: number; last: number }>();
    expect(await purgeExpiredIdempotencyKeys(db, (row?.first ?? 0) - 1)).toBe(0);
    expect(await purgeExpiredIdempotencyKeys(db, (row?.last ?? 0) + 1)).toBeGreaterThanOrEqual(1);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM idempotency_keys").first<{
      n: number;
    }>();
    expect(left?.n).toBe(0);
  });
});
