import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  call,
  callJson,
  createAgent,
  expectProblem,
  publishedChallenge,
  seedOperator,
  submissionForm,
  submit,
  tarGz,
  zip,
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
  return { op, agent, id, slug };
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
    const a = await submit(
      id,
      agent.token,
      submissionForm(zip({ "src/index.js": "export const one = 1;\n", "NOTES.md": "n" })),
    );
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

  it("answers 429 when the agent's submit rate limit is hit", async () => {
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

/** Issues another key for the agent, as its operator does. */
async function mintKey(opToken: string, agentId: string): Promise<string> {
  const res = await callJson(`/v1/agents/${agentId}/keys`, "POST", { label: "more" }, opToken);
  expect(res.status).toBe(201);
  return (await res.json<{ key: { key: string } }>()).key.key;
}

describe("limits per agent", () => {
  it("counts every key of an agent against one submit rate limit", async () => {
    const { op, agent, id } = await arena();
    const second = await mintKey(op.token, agent.id);
    // A limiter that allows one submission per rate-limit key.
    const seen = new Map<string, number>();
    const limit = vi.spyOn(env.SUBMIT_RATE_LIMIT, "limit").mockImplementation(({ key }) => {
      seen.set(key, (seen.get(key) ?? 0) + 1);
      return Promise.resolve({ success: (seen.get(key) ?? 0) <= 1 });
    });
    try {
      expect((await submit(id, agent.token, submissionForm(await solution()))).status).toBe(202);
      const res = await submit(id, second, submissionForm(await solution()));
      const body = await expectProblem(res, 429);
      expect(body.detail).toMatch(/all of its keys share one limit/);
      expect([...seen.keys()]).toEqual([`agent:${agent.id}`]);
    } finally {
      limit.mockRestore();
    }
  });

  it("refuses a submission past the agent's cap on submissions in flight, across challenges and keys, until one settles", async () => {
    // wrangler.toml: MAX_SUBMISSIONS_IN_FLIGHT = 4.
    const { op, agent, id } = await arena();
    const other = await publishedChallenge(op.token, `c${crypto.randomUUID().slice(0, 8)}`);
    await call(`/v1/challenges/${other}/entries`, { method: "POST", token: agent.token });
    const second = await mintKey(op.token, agent.id);
    const accepted: SubmissionView[] = [];
    for (const [challenge, token] of [
      [id, agent.token],
      [id, second],
      [other, agent.token],
      [other, second],
    ] as const) {
      const res = await submit(challenge, token, submissionForm(await solution()));
      expect(res.status).toBe(202);
      accepted.push(await res.json<SubmissionView>());
    }
    const before = await counts();
    const res = await submit(other, second, submissionForm(await solution()), {
      "Idempotency-Key": "fifth",
    });
    const body = await expectProblem(res, 429);
    expect(body.type).toBe("urn:bouts:problem:submissions-in-flight");
    expect(body.detail).toMatch(/4 submissions received, queued or running/);
    expect(body.detail).toMatch(/at most 4/);
    expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await counts()).toEqual(before);
    // One settles (scored); the same request, under the same key, now goes through.
    await env.DB.prepare("UPDATE submissions SET status = 'scored', scored_at = ? WHERE id = ?")
      .bind(Date.now(), accepted[0]!.id)
      .run();
    const retry = await submit(other, second, submissionForm(await solution()), {
      "Idempotency-Key": "fifth",
    });
    expect(retry.status).toBe(202);
  });

  it("holds the in-flight cap when an agent's submissions race each other", async () => {
    const { agent, id } = await arena({ maxIterations: 10 });
    // 20 at once: under the submit rate limit (30 a minute), five times the cap of 4.
    const archives = await Promise.all(Array.from({ length: 20 }, (_, i) => solution(`race${i}`)));
    const results = await Promise.all(
      archives.map((a) => submit(id, agent.token, submissionForm(a))),
    );
    expect(results.filter((r) => r.status === 202)).toHaveLength(4);
    for (const r of results.filter((r) => r.status !== 202)) {
      expect((await expectProblem(r, 429)).type).toBe("urn:bouts:problem:submissions-in-flight");
    }
    const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE agent_id = ?")
      .bind(agent.id)
      .first<{ n: number }>();
    expect(row?.n).toBe(4);
  });
});

/** Charges `runnerMs` of runner time to the agent, recorded `agoMs` before now. */
async function chargeRunner(agentId: string, challengeId: string, runnerMs: number, agoMs: number) {
  const submission = await env.DB.prepare(
    "SELECT id FROM submissions WHERE agent_id = ? ORDER BY received_at DESC LIMIT 1",
  )
    .bind(agentId)
    .first<{ id: string }>();
  await env.DB.prepare(
    "INSERT INTO runner_usage (run_id, kind, submission_id, agent_id, challenge_id, runner_ms, recorded_at) VALUES (?, 'run', ?, ?, ?, ?, ?)",
  )
    .bind(crypto.randomUUID(), submission!.id, agentId, challengeId, runnerMs, Date.now() - agoMs)
    .run();
}

describe("runner time per agent", () => {
  // wrangler.toml: 1800 s of runner time per agent over a 3600 s window.
  it("answers 429 once the agent spent its runner time, across challenges, until enough of it leaves the window", async () => {
    const { op, agent, id } = await arena();
    // The same agent in a second challenge: time spent there counts here too.
    const other = await publishedChallenge(op.token, `c${crypto.randomUUID().slice(0, 8)}`);
    await call(`/v1/challenges/${other}/entries`, { method: "POST", token: agent.token });
    expect((await submit(other, agent.token, submissionForm(await solution()))).status).toBe(202);
    await chargeRunner(agent.id, other, 1_000_000, 3_000_000); // leaves the window in 600 s
    await chargeRunner(agent.id, other, 700_000, 1_000_000); // leaves in 2600 s
    // 1700 s used: still under the ceiling.
    expect((await submit(id, agent.token, submissionForm(await solution()))).status).toBe(202);
    await chargeRunner(agent.id, id, 200_000, 10_000); // 1900 s: over
    const before = await counts();
    const res = await submit(id, agent.token, submissionForm(await solution()));
    const body = await expectProblem(res, 429);
    expect(body.type).toMatch(/runner-time-exhausted/);
    expect(body.detail).toMatch(/1900 s of runner time/);
    // Once the oldest run (1000 s) leaves the window, 900 s remain: the wait is until then.
    const wait = Number(res.headers.get("Retry-After"));
    expect(wait).toBeGreaterThan(590);
    expect(wait).toBeLessThanOrEqual(600);
    expect(await counts()).toEqual(before);
  });

  it("counts only the window, and never another agent's time", async () => {
    const { op, agent, id } = await arena();
    const rival = await createAgent(op.token, "rival");
    await call(`/v1/challenges/${id}/entries`, { method: "POST", token: rival.token });
    expect((await submit(id, agent.token, submissionForm(await solution()))).status).toBe(202);
    expect((await submit(id, rival.token, submissionForm(await solution()))).status).toBe(202);
    await chargeRunner(agent.id, id, 5_000_000, 3_700_000); // outside the window
    await chargeRunner(rival.id, id, 5_000_000, 1000); // the rival's, not ours
    expect((await submit(id, agent.token, submissionForm(await solution()))).status).toBe(202);
    await expectProblem(await submit(id, rival.token, submissionForm(await solution())), 429);
  });

  it("shows the operator the agent's runner time by challenge, and only its own agents", async () => {
    const { op, agent, id } = await arena();
    expect((await submit(id, agent.token, submissionForm(await solution()))).status).toBe(202);
    await chargeRunner(agent.id, id, 1500, 1000);
    await chargeRunner(agent.id, id, 2500, 2000);
    const res = await call(`/v1/agents/${agent.id}/usage`, { token: op.token });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      agentId: agent.id,
      windowSeconds: 3600,
      ceilingSeconds: 1800,
      usedSeconds: 4,
      remainingSeconds: 1796,
      challenges: [{ challengeId: id, runs: 2, runnerSeconds: 4 }],
    });
    const stranger = await seedOperator("stranger");
    await expectProblem(await call(`/v1/agents/${agent.id}/usage`, { token: stranger.token }), 404);
    await expectProblem(await call(`/v1/agents/${agent.id}/usage`, { token: agent.token }), 403);
  });
});

describe("authenticating a submit", () => {
  /** The secret part of `bouts_<24 hex id>_<43 chars>`. */
  const forge = (token: string) => `${token.slice(0, 31)}${"x".repeat(43)}`;

  it.each([
    ["no key", () => undefined],
    ["a malformed key", () => "not-a-key"],
    ["an unknown key id", () => `bouts_${"a".repeat(24)}_${"b".repeat(43)}`],
    ["a known key id with the wrong secret", (t: string) => forge(t)],
  ])(
    "answers 401 to %s, before the rate limit and without storing anything",
    async (_label, tokenOf) => {
      const { agent, id } = await arena();
      const before = await counts();
      const limit = vi.spyOn(env.SUBMIT_RATE_LIMIT, "limit");
      const token = tokenOf(agent.token);
      const res = await call(`/v1/challenges/${id}/submissions`, {
        method: "POST",
        body: submissionForm(await solution()),
        headers: { "Idempotency-Key": "auth" },
        ...(token === undefined ? {} : { token }),
      });
      const body = await expectProblem(res, 401);
      expect(body.detail).toMatch(/API key/);
      expect(limit).not.toHaveBeenCalled();
      limit.mockRestore();
      expect(await counts()).toEqual(before);
    },
  );

  it("answers 401 to a revoked key", async () => {
    const { op, agent, id } = await arena();
    await call(`/v1/keys/${agent.keyId}`, { method: "DELETE", token: op.token });
    const before = await counts();
    await expectProblem(await submit(id, agent.token, submissionForm(await solution())), 401);
    expect(await counts()).toEqual(before);
  });

  it("answers 401 before validating the challenge id", async () => {
    const res = await call("/v1/challenges/-bad-/submissions", {
      method: "POST",
      body: submissionForm(await solution()),
    });
    await expectProblem(res, 401);
  });

  it("answers 403 to an operator key and stores nothing", async () => {
    const { op, id } = await arena();
    const before = await counts();
    await expectProblem(await submit(id, op.token, submissionForm(await solution())), 403);
    expect(await counts()).toEqual(before);
  });

  it("answers 404 for a missing or draft challenge, by id or slug", async () => {
    const { op, agent } = await arena();
    await expectProblem(
      await submit(crypto.randomUUID(), agent.token, submissionForm(await solution())),
      404,
    );
    const slug = `d${crypto.randomUUID().slice(0, 8)}`;
    const draft = await callJson(
      "/v1/challenges",
      "POST",
      { slug, title: "Draft", profile: "engineering", maxIterations: 3 },
      op.token,
    );
    expect(draft.status).toBe(201);
    await expectProblem(await submit(slug, agent.token, submissionForm(await solution())), 404);
  });

  it("accepts the challenge's slug as well as its id", async () => {
    const { agent, slug } = await arena();
    const res = await submit(slug, agent.token, submissionForm(await solution()));
    expect(res.status).toBe(202);
    expect((await res.json<SubmissionView>()).iteration).toBe(1);
  });
});

describe("write order", () => {
  // The bindings' own methods, taken before any spy wraps them, for mocks that call through.
  const realPut = env.ARTIFACTS.put.bind(env.ARTIFACTS);
  const realSend = env.SUBMISSIONS.send.bind(env.SUBMISSIONS);
  const realPrepare = env.DB.prepare.bind(env.DB);

  it("stores the objects only once the row that references them is committed", async () => {
    const { agent, id } = await arena();
    const seen: (string | null)[] = [];
    const spy = vi.spyOn(env.ARTIFACTS, "put").mockImplementation(async (key, value, options) => {
      const row = await env.DB.prepare(
        `SELECT status FROM submissions WHERE artifact_key = ?1 OR trace_key = ?1
         ORDER BY received_at DESC LIMIT 1`,
      )
        .bind(key)
        .first<{ status: string }>();
      seen.push(row?.status ?? null);
      return realPut(key, value, options);
    });
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution(), { trace: VALID_TRACE }),
    );
    spy.mockRestore();
    expect(res.status).toBe(202);
    expect(seen).toEqual(["received", "received"]);
  });

  it("sends the queue message only once the objects are stored", async () => {
    const { agent, id } = await arena();
    const heads: boolean[] = [];
    const send = vi.spyOn(env.SUBMISSIONS, "send").mockImplementation(async (body, options) => {
      const { submissionId } = body as { submissionId: string };
      const row = await env.DB.prepare("SELECT artifact_key FROM submissions WHERE id = ?")
        .bind(submissionId)
        .first<{ artifact_key: string }>();
      heads.push((await env.ARTIFACTS.head(row?.artifact_key ?? "")) !== null);
      return realSend(body, options);
    });
    const res = await submit(id, agent.token, submissionForm(await solution()));
    send.mockRestore();
    expect(res.status).toBe(202);
    expect(heads).toEqual([true]);
  });

  it("writes nothing to R2 for a submit refused by the quota or replayed by its key", async () => {
    const { agent, id } = await arena({ maxIterations: 1 });
    const archive = await solution();
    const first = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "once",
    });
    expect(first.status).toBe(202);
    const put = vi.spyOn(env.ARTIFACTS, "put");
    const del = vi.spyOn(env.ARTIFACTS, "delete");
    const replay = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "once",
    });
    expect(replay.status).toBe(202);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    await expectProblem(await submit(id, agent.token, submissionForm(await solution())), 429);
    expect(put).not.toHaveBeenCalled();
    expect(del).not.toHaveBeenCalled();
    put.mockRestore();
    del.mockRestore();
  });

  it("undoes the row, the claim and the stored archive when only the trace's put fails", async () => {
    const { agent, id } = await arena();
    const before = await counts();
    const spy = vi
      .spyOn(env.ARTIFACTS, "put")
      .mockImplementation((key, value, options) =>
        key.startsWith("traces/")
          ? Promise.reject(new Error("R2 down"))
          : realPut(key, value, options),
      );
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution(), { trace: VALID_TRACE }),
      { "Idempotency-Key": "trace-fail" },
    );
    spy.mockRestore();
    await expectProblem(res, 503);
    expect(await counts()).toEqual(before);
  });

  it("keeps the objects when the row cannot be deleted on undo, for the sweep to settle", async () => {
    const { agent, id } = await arena();
    const before = await counts();
    const send = vi.spyOn(env.SUBMISSIONS, "send").mockRejectedValue(new Error("queue down"));
    // The first statement of the undo is the row's DELETE: make D1 refuse it.
    const spy = vi
      .spyOn(env.DB, "prepare")
      .mockImplementation((query) =>
        query.startsWith("delete from")
          ? realPrepare("SELECT RAISE(ABORT, 'D1 down')")
          : realPrepare(query),
      );
    const res = await submit(id, agent.token, submissionForm(await solution()));
    spy.mockRestore();
    send.mockRestore();
    await expectProblem(res, 503);
    const after = await counts();
    // The row stays `received` with its object: the ingest sweep re-queues or fails it.
    expect(after.subs).toBe((before.subs ?? 0) + 1);
    expect(after.objects).toBe(before.objects + 1);
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
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(again.headers.get("Content-Type")).toBe(first.headers.get("Content-Type"));
    expect(await again.text()).toBe(await first.text());
    expect(await counts()).toEqual(before);
  });

  it("replays the first answer after it started the cooldown, and still answers 422 for another body", async () => {
    const { agent, id } = await arena({ limits: { cooldownSeconds: 600 } });
    const archive = await solution();
    const first = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "cool",
    });
    expect(first.status).toBe(202);
    const again = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "cool",
    });
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    const other = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "cool",
    });
    await expectProblem(other, 422);
    // A new key is a new submission: the cooldown applies.
    const fresh = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "cool-2",
    });
    await expectProblem(fresh, 429);
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

  it("replays a refusal of the content under its key without judging it again, and still answers 422 to another body", async () => {
    const { agent, id } = await arena();
    // The challenge loads src/main.js, which the archive lacks: the validator refuses it.
    const setInterface = (sql: string) =>
      env.DB.prepare(`UPDATE challenges SET bundle_manifest = ${sql} WHERE id = ?`).bind(id).run();
    await setInterface(
      `json_set(bundle_manifest, '$.interface', json('{"module":"src/main.js"}'))`,
    );
    const archive = await solution();
    const before = await counts();
    const first = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "refused",
    });
    const firstBody = await first.text();
    expect(first.status).toBe(422);
    expect(JSON.parse(firstBody)).toMatchObject({ rule: "nothing-to-load", entry: "src/main.js" });
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    // Judged again now, the same archive would pass: the replay proves it is not.
    await setInterface("json_remove(bundle_manifest, '$.interface')");
    const again = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "refused",
    });
    expect(again.status).toBe(422);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Content-Type")).toBe("application/problem+json");
    expect(await again.text()).toBe(firstBody);
    const other = await submit(id, agent.token, submissionForm(await solution()), {
      "Idempotency-Key": "refused",
    });
    expect((await expectProblem(other, 422)).type).toBe("urn:bouts:problem:idempotency-mismatch");
    expect(await counts()).toEqual({ ...before, idem: (before.idem ?? 0) + 1 });
    // Without the key, the same archive is judged afresh, and now it passes.
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
  });

  it("replays invalid claims byte for byte, and treats other claims text as another body", async () => {
    const { agent, id } = await arena();
    const archive = await solution();
    const claims = JSON.stringify([{ id: "x", statement: "s", confidence: 7 }]);
    const first = await submit(id, agent.token, submissionForm(archive, { claims }), {
      "Idempotency-Key": "bad-claims",
    });
    const firstBody = await first.text();
    expect(first.status).toBe(400);
    const again = await submit(id, agent.token, submissionForm(archive, { claims }), {
      "Idempotency-Key": "bad-claims",
    });
    expect(again.status).toBe(400);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(firstBody);
    const fixed = await submit(id, agent.token, submissionForm(archive, { claims: "[]" }), {
      "Idempotency-Key": "bad-claims",
    });
    expect((await expectProblem(fixed, 422)).type).toBe("urn:bouts:problem:idempotency-mismatch");
  });

  it("keeps no answer a retry may change: a rate-limit 429 under a key is retried afresh", async () => {
    const { agent, id } = await arena();
    const archive = await solution();
    const limit = vi.spyOn(env.SUBMIT_RATE_LIMIT, "limit").mockResolvedValue({ success: false });
    const refused = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "later",
    });
    limit.mockRestore();
    await expectProblem(refused, 429);
    const retry = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "later",
    });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
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
      "UPDATE submissions SET status = 'failed', failed_at = ?, failure_reason = 'runner timed out', failure_code = 'infrastructure' WHERE id = ?",
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
    expect(view).toMatchObject({
      status: "failed",
      failureReason: "runner timed out",
      failureCode: "infrastructure",
    });
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
