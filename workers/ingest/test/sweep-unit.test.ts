import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createDb, findSubmission } from "@bouts/db";
import { sweepIngest } from "../src/sweep.ts";
import {
  call,
  createAgent,
  publishedChallenge,
  seedOperator,
  submissionForm,
  submit,
  tarGz,
} from "./helpers.ts";

const HOUR = 3_600_000;

/** A submission left `received`, as if its request died right after its D1 commit. */
async function strandedSubmission(slug: string) {
  const op = await seedOperator();
  const agent = await createAgent(op.token);
  const id = await publishedChallenge(op.token, slug);
  await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token });
  const res = await submit(id, agent.token, submissionForm(await tarGz({ "a.js": slug })));
  const { id: submissionId, artifact } = await res.json<{
    id: string;
    artifact: { sha256: string };
  }>();
  await env.DB.prepare("UPDATE submissions SET status = 'received', queued_at = NULL WHERE id = ?")
    .bind(submissionId)
    .run();
  return { submissionId, key: `artifacts/${artifact.sha256}` };
}

describe("the ingest sweep", () => {
  it("re-queues a stranded submission whose files are there", async () => {
    const { submissionId } = await strandedSubmission("sweep-a");
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const result = await sweepIngest(env, Date.now() + HOUR);
    expect(result.requeued).toBeGreaterThanOrEqual(1);
    expect(send).toHaveBeenCalledWith(
      expect.objectContaining({ v: 1, submissionId }),
      expect.anything(),
    );
    send.mockRestore();
    expect((await findSubmission(createDb(env.DB), submissionId))?.status).toBe("queued");
  });

  it("fails a stranded submission whose archive is missing, with a reason", async () => {
    const { submissionId, key } = await strandedSubmission("sweep-b");
    await env.ARTIFACTS.delete(key);
    await sweepIngest(env, Date.now() + HOUR);
    const row = await findSubmission(createDb(env.DB), submissionId);
    expect(row?.status).toBe("failed");
    expect(row?.failureReason).toMatch(/interrupted/);
  });

  it("leaves young rows and objects alone", async () => {
    const { submissionId } = await strandedSubmission("sweep-c");
    await env.ARTIFACTS.put("artifacts/young-orphan", "x");
    await sweepIngest(env, Date.now());
    expect((await findSubmission(createDb(env.DB), submissionId))?.status).toBe("received");
    expect(await env.ARTIFACTS.head("artifacts/young-orphan")).not.toBeNull();
  });

  it("deletes old objects no row references and keeps referenced ones", async () => {
    const { key } = await strandedSubmission("sweep-d");
    await env.ARTIFACTS.put("artifacts/old-orphan", "x");
    await env.ARTIFACTS.put("traces/old-orphan", "x");
    const result = await sweepIngest(env, Date.now() + HOUR);
    expect(result.objectsDeleted).toBeGreaterThanOrEqual(2);
    expect(await env.ARTIFACTS.head("artifacts/old-orphan")).toBeNull();
    expect(await env.ARTIFACTS.head("traces/old-orphan")).toBeNull();
    expect(await env.ARTIFACTS.head(key)).not.toBeNull();
  });
});
