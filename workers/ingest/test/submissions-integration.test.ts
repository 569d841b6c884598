import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  call,
  createAgent,
  expectProblem,
  publishedChallenge,
  seedOperator,
  submissionForm,
  submit,
  tarGz,
  zipLike,
} from "./helpers.ts";
import { sha256Hex } from "@bouts/db";

/** A minimal valid bouts.trace/v1 trace (ingest validates traces; see trace-integration). */
const VALID_TRACE = new TextEncoder().encode(
  '{"format":"bouts.trace/v1"}\n{"type":"message","seq":1,"ts":"2026-03-02T09:00:00Z","role":"user","text":"go"}\n',
);

type SubmissionView = {
  id: string;
  url: string;
  iteration: number;
  status: string;
  claims: number;
  trace: { sha256: string } | null;
  artifact: { sha256: string; bytes: number; type: string };
  timestamps: Record<string, string | null>;
};

let counter = 0;
/** A distinct small solution archive each call. */
function solution(tag = `${++counter}`) {
  return tarGz({
    "src/index.js": `export const answer = ${JSON.stringify(tag)};\n`,
    "NOTES.md": "n",
  });
}

/** An operator, an agent entered into a fresh published challenge. */
async function arena(overrides: Record<string, unknown> = {}) {
  const op = await seedOperator();
  const agent = await createAgent(op.token);
  const slug = `c${crypto.randomUUID().slice(0, 8)}`;
  const id = await publishedChallenge(op.token, slug, overrides);
  const entered = await call(`/v1/challenges/${id}/entries`, {
    method: "POST",
    token: agent.token,
  });
  expect(entered.status).toBe(201);
  return { op, agent, id };
}

async function counts() {
  const row = await env.DB.prepare(
    "SELECT (SELECT COUNT(*) FROM submissions) AS subs, (SELECT COUNT(*) FROM idempotency_keys) AS idem",
  ).first<{ subs: number; idem: number }>();
  const objects = (await env.ARTIFACTS.list({ prefix: "artifacts/" })).objects.length;
  const traces = (await env.ARTIFACTS.list({ prefix: "traces/" })).objects.length;
  return { ...row, objects, traces };
}

describe("submitting", () => {
  it("stores the archive under its SHA-256, writes the row, enqueues ids only and answers 202", async () => {
    const { agent, id } = await arena();
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const claims = JSON.stringify([
      { id: "c1", statement: "all static tests pass", confidence: 0.9, tests: ["fizz.basic"] },
      { id: "c2", statement: "edge cases", confidence: "uncertain" },
    ]);
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution(), { claims, trace: VALID_TRACE }),
    );
    expect(res.status).toBe(202);
    const body = await res.json<SubmissionView>();
    expect(res.headers.get("Location")).toBe(body.url);
    expect(body).toMatchObject({
      iteration: 1,
      status: "queued",
      claims: 2,
      artifact: { type: "tar.gz" },
    });
    expect(body.trace).not.toBeNull();
    expect(await env.ARTIFACTS.head(`artifacts/${body.artifact.sha256}`)).not.toBeNull();
    expect(await env.ARTIFACTS.head(`traces/${body.trace?.sha256}`)).not.toBeNull();
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]?.[0]).toEqual({
      v: 1,
      submissionId: body.id,
      challengeId: id,
      agentId: agent.id,
    });
    send.mockRestore();
  });

  it("accepts a zip archive and numbers iterations per agent", async () => {
    const { agent, id } = await arena();
    const a = await submit(id, agent.token, submissionForm(zipLike("one")));
    const b = await submit(id, agent.token, submissionForm(await solution()));
    expect((await a.json<SubmissionView>()).artifact.type).toBe("zip");
    expect((await b.json<SubmissionView>()).iteration).toBe(2);
  });

  it("gives concurrent submissions distinct iterations and never exceeds the quota", async () => {
    const { agent, id } = await arena({ maxIterations: 3 });
    const archives = await Promise.all([1, 2, 3, 4, 5].map((i) => solution(`p${i}`)));
    const results = await Promise.all(
      archives.map((a) => submit(id, agent.token, submissionForm(a))),
    );
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 202)) expect(r.status).toBe(429);
    const iterations = await Promise.all(
      accepted.map(async (r) => (await r.json<SubmissionView>()).iteration),
    );
    expect(iterations.sort()).toEqual([1, 2, 3]);
  });

  it("answers 429 with Retry-After once the challenge's quota is used", async () => {
    const { agent, id } = await arena({ maxIterations: 1 });
    expect((await submit(id, agent.token, submissionForm(await solution()))).status).toBe(202);
    const res = await submit(id, agent.token, submissionForm(await solution()));
    const body = await expectProblem(res, 429);
    expect(body.detail).toMatch(/1 submissions/);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("enforces the challenge's cooldown with 429 and the remaining wait", async () => {
    const { agent, id } = await arena({ limits: { cooldownSeconds: 600 } });
    expect((await submit(id, agent.token, submissionForm(await solution()))).status).toBe(202);
    const res = await submit(id, agent.token, submissionForm(await solution()));
    await expectProblem(res, 429);
    const wait = Number(res.headers.get("Retry-After"));
    expect(wait).toBeGreaterThan(590);
    expect(wait).toBeLessThanOrEqual(600);
  });

  it("answers 429 when the key's submit rate limit is hit", async () => {
    const { agent, id } = await arena();
    const limit = vi.spyOn(env.SUBMIT_RATE_LIMIT, "limit").mockResolvedValue({ success: false });
    const res = await submit(id, agent.token, submissionForm(await solution()));
    await expectProblem(res, 429);
    expect(res.headers.get("Retry-After")).toBe("60");
    limit.mockRestore();
  });

  it("refuses a submission before entering (409) and to a closed challenge (409)", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const id = await publishedChallenge(op.token, "not-entered");
    await expectProblem(await submit(id, agent.token, submissionForm(await solution())), 409);
    await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token });
    await call(`/v1/challenges/${id}/close`, { method: "POST", token: op.token });
    await expectProblem(await submit(id, agent.token, submissionForm(await solution())), 409);
  });
});

describe("refused uploads leave nothing behind", () => {
  it.each([
    [
      "a non-archive file (415)",
      415,
      () => Promise.resolve(submissionForm(new TextEncoder().encode("#!/bin/sh\nrm -rf /"))),
    ],
    [
      "a missing archive part (400)",
      400,
      () => {
        const f = new FormData();
        f.set("claims", "[]");
        return Promise.resolve(f);
      },
    ],
    [
      "an unknown part that tries to set the score (400)",
      400,
      async () => submissionForm(await solution(), { extra: { score: "100" } }),
    ],
    [
      "claims that are not JSON (400)",
      400,
      async () => submissionForm(await solution(), { claims: "{nope" }),
    ],
    [
      "claims that break the schema (400)",
      400,
      async () =>
        submissionForm(await solution(), {
          claims: JSON.stringify([{ id: "x", statement: "s", confidence: 7 }]),
        }),
    ],
    [
      "claims with unknown fields (400)",
      400,
      async () =>
        submissionForm(await solution(), {
          claims: JSON.stringify([{ id: "x", statement: "s", confidence: 1, status: "scored" }]),
        }),
    ],
    [
      "an empty trace (400)",
      400,
      async () => submissionForm(await solution(), { trace: new Uint8Array(0) }),
    ],
  ])("refuses %s", async (_label, status, build) => {
    const { agent, id } = await arena();
    const before = await counts();
    const res = await submit(id, agent.token, await build());
    await expectProblem(res, status);
    expect(await counts()).toEqual(before);
  });

  it("refuses a body that is not multipart (415)", async () => {
    const { agent, id } = await arena();
    const res = await call(`/v1/challenges/${id}/submissions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
      token: agent.token,
    });
    await expectProblem(res, 415);
  });

  it("refuses an archive over the challenge's size limit (413) and stores nothing", async () => {
    const { agent, id } = await arena({ limits: { maxArchiveBytes: 2048 } });
    const before = await counts();
    const big = new Uint8Array(4096);
    big.set([0x1f, 0x8b]);
    const res = await submit(id, agent.token, submissionForm(big));
    expect((await expectProblem(res, 413)).detail).toMatch(/archive/);
    expect(await counts()).toEqual(before);
  });

  it("refuses a declared body over the platform limit (413) before reading it", async () => {
    const { agent, id } = await arena();
    const res = await call(`/v1/challenges/${id}/submissions`, {
      method: "POST",
      headers: {
        "Content-Type": "multipart/form-data; boundary=x",
        "Content-Length": String(500 * 1024 * 1024),
      },
      body: "--x--",
      token: agent.token,
    });
    await expectProblem(res, 413);
  });

  it("undoes the row, the object and the idempotency claim when the queue fails (503)", async () => {
    const { agent, id } = await arena();
    const before = await counts();
    const send = vi.spyOn(env.SUBMISSIONS, "send").mockRejectedValue(new Error("queue down"));
    const res = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "q-fail",
    });
    await expectProblem(res, 503);
    expect(await counts()).toEqual(before);
    send.mockRestore();
    // The released key can be used again once the queue is back.
    const retry = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "q-fail",
    });
    expect(retry.status).toBe(202);
  });

  it("undoes the objects when the database insert fails (503)", async () => {
    const { agent, id } = await arena();
    const before = await counts();
    const batch = vi.spyOn(env.DB, "batch").mockRejectedValueOnce(new Error("D1 down"));
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution(), { trace: VALID_TRACE }),
    );
    batch.mockRestore();
    await expectProblem(res, 503);
    expect(await counts()).toEqual(before);
  });

  it("undoes the row and the idempotency claim when the R2 put fails (503)", async () => {
    const { agent, id } = await arena();
    const before = await counts();
    const put = vi.spyOn(env.ARTIFACTS, "put").mockRejectedValueOnce(new Error("R2 down"));
    const res = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "r2-fail",
    });
    put.mockRestore();
    await expectProblem(res, 503);
    expect(await counts()).toEqual(before);
    const retry = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "r2-fail",
    });
    expect(retry.status).toBe(202);
  });

  it("keeps an object another submission still references when undoing", async () => {
    const { agent, id } = await arena();
    const archive = await solution("shared");
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
    const before = await counts();
    const send = vi.spyOn(env.SUBMISSIONS, "send").mockRejectedValue(new Error("queue down"));
    await expectProblem(await submit(id, agent.token, submissionForm(archive)), 503);
    send.mockRestore();
    expect(await counts()).toEqual(before);
  });
});

describe("idempotency", () => {
  it("replays the first answer for the same key and body, creating one submission", async () => {
    const { agent, id } = await arena();
    const archive = await solution();
    const first = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "k-1",
    });
    expect(first.status).toBe(202);
    const before = await counts();
    const again = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "k-1",
    });
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect(await counts()).toEqual(before);
  });

  it("answers 422 for the same key with a different body", async () => {
    const { agent, id } = await arena();
    await submit(id, agent.token, submissionForm(await solution()), { "Idempotency-Key": "k-2" });
    const res = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "k-2",
    });
    await expectProblem(res, 422);
  });

  it("answers 409 while the first request with the key is in flight, then takes over a stale claim", async () => {
    const { agent, id } = await arena();
    const archive = await solution();
    const requestHash = await sha256Hex(JSON.stringify([id, await sha256Hex(archive), null, null]));
    const claim = (leaseUntil: number) =>
      env.DB.prepare(
        `INSERT OR REPLACE INTO idempotency_keys (agent_id, key, request_hash, state, created_at, lease_until, expires_at)
         VALUES (?, 'k-3', ?, 'in-flight', ?, ?, ?)`,
      )
        .bind(agent.id, requestHash, Date.now(), leaseUntil, Date.now() + 86_400_000)
        .run();
    await claim(Date.now() + 60_000);
    const busy = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "k-3",
    });
    await expectProblem(busy, 409);
    expect(Number(busy.headers.get("Retry-After"))).toBeGreaterThan(0);
    // A claim whose lease ran out and whose submission does not exist is taken over.
    await claim(Date.now() - 1);
    const res = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "k-3",
    });
    expect(res.status).toBe(202);
  });

  it("scopes keys per agent", async () => {
    const { op, agent, id } = await arena();
    const other = await createAgent(op.token, "other");
    await call(`/v1/challenges/${id}/entries`, { method: "POST", token: other.token });
    const a = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "same",
    });
    const b = await submit(id, other.token, submissionForm(await solution()), {
      "Idempotency-Key": "same",
    });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
  });

  it("keeps records at least 24 hours", async () => {
    const { agent, id } = await arena();
    await submit(id, agent.token, submissionForm(await solution()), { "Idempotency-Key": "ttl" });
    const row = await env.DB.prepare(
      "SELECT created_at, expires_at FROM idempotency_keys WHERE key = 'ttl'",
    ).first<{ created_at: number; expires_at: number }>();
    expect((row?.expires_at ?? 0) - (row?.created_at ?? 0)).toBeGreaterThanOrEqual(86_400_000);
  });

  it("refuses a malformed key (400)", async () => {
    const { agent, id } = await arena();
    const res = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "has space",
    });
    await expectProblem(res, 400);
  });
});

describe("reading submissions", () => {
  it("shows the agent its submission's status and timestamps", async () => {
    const { agent, id } = await arena();
    const created = await (
      await submit(id, agent.token, submissionForm(await solution()))
    ).json<SubmissionView>();
    const res = await call(new URL(created.url).pathname, { token: agent.token });
    expect(res.status).toBe(200);
    const view = await res.json<SubmissionView>();
    expect(view.status).toBe("queued");
    expect(view.timestamps.received).not.toBeNull();
    expect(view.timestamps.queued).not.toBeNull();
    expect(view.timestamps.scored).toBeNull();
    const list = await (
      await call(`/v1/challenges/${id}/submissions`, { token: agent.token })
    ).json<{
      submissions: SubmissionView[];
    }>();
    expect(list.submissions.map((s) => s.id)).toEqual([created.id]);
  });

  it("shows failed submissions with their reason", async () => {
    const { agent, id } = await arena();
    const created = await (
      await submit(id, agent.token, submissionForm(await solution()))
    ).json<SubmissionView>();
    await env.DB.prepare(
      "UPDATE submissions SET status = 'failed', failed_at = ?, failure_reason = 'runner timed out' WHERE id = ?",
    )
      .bind(Date.now(), created.id)
      .run();
    const view = await (
      await call(`/v1/submissions/${created.id}`, { token: agent.token })
    ).json<
      SubmissionView & {
        failureReason: string;
      }
    >();
    expect(view).toMatchObject({ status: "failed", failureReason: "runner timed out" });
  });

  it("answers 404 for another agent's submission, exactly as for a missing one", async () => {
    const { op, agent, id } = await arena();
    const intruder = await createAgent(op.token, "intruder");
    const created = await (
      await submit(id, agent.token, submissionForm(await solution()))
    ).json<SubmissionView>();
    const theirs = await call(`/v1/submissions/${created.id}`, { token: intruder.token });
    const missing = await call(`/v1/submissions/${crypto.randomUUID()}`, { token: intruder.token });
    const a = await expectProblem(theirs, 404);
    const b = await expectProblem(missing, 404);
    expect(a).toEqual(b);
    const list = await (
      await call(`/v1/challenges/${id}/submissions`, { token: intruder.token })
    ).json<{
      submissions: unknown[];
    }>();
    expect(list.submissions).toEqual([]);
  });
});
