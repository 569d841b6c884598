/**
 * The append-only audit trail, through the HTTP API and the submissions queue: submissions
 * scored by the real runner, an infrastructure failure re-judged by the operator and then
 * scored, an operator's removal with a reason, and audited rebuilds. Hostile: another agent,
 * another operator and no key cannot read a submission's history; the database itself refuses
 * to change or delete an event.
 */
import { env, exports } from "cloudflare:workers";
import { createDb, failSubmission, insertApiKey, insertOperator } from "@bouts/db";
import { mintApiKey } from "@bouts/db/keys";
import { describe, expect, it } from "vitest";
import { seedChallenge, seedSubmission } from "./helpers.ts";

const ORIGIN = "http://bouts.test";
const call = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }));
};
const postJson = (path: string, token: string, body: unknown) =>
  call(path, {
    method: "POST",
    token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** An operator key; for `operatorId` when given (the challenge's owner), else a new operator. */
async function operatorKey(operatorId?: string): Promise<string> {
  const db = createDb(env.DB);
  const id = operatorId ?? crypto.randomUUID();
  if (!operatorId) await insertOperator(db, { id, name: "other", createdAt: Date.now() });
  const key = await mintApiKey();
  await insertApiKey(db, {
    id: key.id,
    role: "operator",
    agentId: null,
    operatorId: id,
    secretHash: key.secretHash,
    label: "audit",
    createdAt: Date.now(),
    revokedAt: null,
  });
  return key.token;
}

async function registerAgent(operatorToken: string, challengeId: string, name: string) {
  const res = await postJson("/v1/agents", operatorToken, { name });
  expect(res.status).toBe(201);
  const { agent, key } = await res.json<{ agent: { id: string }; key: { key: string } }>();
  expect(
    (await call(`/v1/challenges/${challengeId}/entries`, { method: "POST", token: key.key }))
      .status,
  ).toBe(201);
  return { agentId: agent.id, token: key.key };
}

async function submit(a: { token: string }, challengeId: string, kind: string) {
  const archive = await (
    await env.FIXTURES.fetch(`http://fixtures/submission/deep-merge/${kind}`)
  ).arrayBuffer();
  const form = new FormData();
  form.set("archive", new Blob([archive]), "solution.tar.gz");
  const res = await call(`/v1/challenges/${challengeId}/submissions`, {
    method: "POST",
    token: a.token,
    body: form,
  });
  expect(res.status).toBe(202);
  return (await res.json<{ id: string }>()).id;
}

async function waitForStatus(token: string, submissionId: string, want: string) {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const res = await call(`/v1/submissions/${submissionId}`, { token });
    const body = await res.json<{ status: string; failureReason: string | null }>();
    if (body.status === want) return;
    if (body.status === "failed" && want !== "failed")
      throw new Error(`submission failed: ${body.failureReason}`);
    if (Date.now() > deadline) throw new Error(`still ${body.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Event {
  seq: number;
  type: string;
  submissionId: string | null;
  actor: { kind: string; id: string };
  cause: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  at: string;
}
async function history(path: string, token?: string) {
  const res = await call(path, token ? { token } : {});
  expect(res.status).toBe(200);
  return (await res.json<{ events: Event[]; next: number | null }>()).events;
}

describe("the audit trail", () => {
  it("records scores, removals and rebuilds; only the owner and the operator read a submission's history", async () => {
    const ch = await seedChallenge("deep-merge");
    const owner = await operatorKey(ch.operatorId);
    const stranger = await operatorKey();
    const alice = await registerAgent(owner, ch.challengeId, "alice");
    const bob = await registerAgent(owner, ch.challengeId, "bob");
    const aliceSub = await submit(alice, ch.challengeId, "complete");
    const bobSub = await submit(bob, ch.challengeId, "partial");
    await Promise.all([
      waitForStatus(alice.token, aliceSub, "scored"),
      waitForStatus(bob.token, bobSub, "scored"),
    ]);

    // The owner reads the `scored` event: the pipeline as actor, the state before and after.
    const mine = await history(`/v1/submissions/${aliceSub}/history`, alice.token);
    expect(mine.map((e) => e.type)).toEqual(["scored"]);
    const scored = mine[0]!;
    expect(scored.actor).toEqual({ kind: "system", id: "score" });
    expect(scored.before).toEqual({ status: "running" });
    expect(scored.after).toMatchObject({ status: "scored" });
    const board0 = await (
      await call(`/v1/challenges/${ch.challengeId}/leaderboard`)
    ).json<{ entries: { agentId: string; score: number }[] }>();
    expect(board0.entries.map((e) => e.agentId)).toEqual([alice.agentId, bob.agentId]);
    expect(scored.after!.score).toBe(board0.entries[0]!.score);
    // The challenge's operator reads it too.
    expect((await history(`/v1/submissions/${aliceSub}/history`, owner)).length).toBe(1);

    // Hostile: another agent, another operator, no key, a garbage key.
    const theirs = await call(`/v1/submissions/${aliceSub}/history`, { token: bob.token });
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).not.toContain(alice.agentId);
    expect((await call(`/v1/submissions/${aliceSub}/history`, { token: stranger })).status).toBe(
      404,
    );
    expect((await call(`/v1/submissions/${aliceSub}/history`)).status).toBe(401);
    expect(
      (await call(`/v1/submissions/${aliceSub}/history`, { token: "bouts_nope_nope" })).status,
    ).toBe(401);

    // An operator removes alice's submission with a reason: bob now leads, the score stays.
    expect(
      (await postJson(`/v1/submissions/${aliceSub}/removal`, alice.token, { reason: "x" })).status,
    ).toBe(403);
    expect(
      (await postJson(`/v1/submissions/${aliceSub}/removal`, stranger, { reason: "x" })).status,
    ).toBe(404);
    const blank = await postJson(`/v1/submissions/${aliceSub}/removal`, owner, { reason: " " });
    expect(blank.status).toBe(400);
    expect(blank.headers.get("content-type")).toContain("application/problem+json");
    const removed = await postJson(`/v1/submissions/${aliceSub}/removal`, owner, {
      reason: "shared its solution with another entrant",
    });
    expect(removed.status).toBe(200);
    const again = await postJson(`/v1/submissions/${aliceSub}/removal`, owner, { reason: "twice" });
    expect(again.status).toBe(409);
    expect(await removed.json()).toMatchObject({ board: { agents: 1, results: 1 } });
    // The board itself (the public read caches the version for seconds): bob alone ranks.
    const page = await env.LEADERBOARD.getByName(ch.challengeId).getPage({ limit: 10 });
    expect(page.ok && page.value.entries.map((e) => [e.agentId, e.rank])).toEqual([
      [bob.agentId, 1],
    ]);
    expect((await call(`/v1/submissions/${aliceSub}/breakdown`)).status).toBe(200);

    const after = await history(`/v1/submissions/${aliceSub}/history`, alice.token);
    expect(after.map((e) => e.type)).toEqual(["scored", "removed", "rebuilt"]);
    const removal = after[1]!;
    expect(removal.cause).toBe("shared its solution with another entrant");
    expect(removal.actor.kind).toBe("operator");
    expect(removal.before).toMatchObject({ ranked: true });
    expect(removal.after).toMatchObject({ ranked: false });

    // A plain rebuild keeps the removal out, and is itself a public, audited event.
    const rebuilt = await postJson(`/v1/challenges/${ch.challengeId}/leaderboard/rebuild`, owner, {
      reason: "after a storage incident",
    });
    expect(rebuilt.status).toBe(200);
    expect(await rebuilt.json()).toMatchObject({ agents: 1, results: 1 });
    const publicHistory = await history(`/v1/challenges/${ch.challengeId}/history`);
    expect(publicHistory.map((e) => [e.type, e.cause])).toEqual([
      [
        "rebuilt",
        "an operator removed a submission from the board: shared its solution with another entrant",
      ],
      ["rebuilt", "after a storage incident"],
    ]);
    expect(publicHistory[0]!.before).toMatchObject({ agents: 2 });
    expect(publicHistory[0]!.after).toMatchObject({ agents: 1, results: 1 });
    // Submission-level events are not public.
    expect(publicHistory.some((e) => e.type === "scored" || e.type === "removed")).toBe(false);

    // Append-only: the database refuses to change or delete an event, or a removal.
    await expect(env.DB.prepare("UPDATE audit_events SET cause = 'edited'").run()).rejects.toThrow(
      /append-only/,
    );
    await expect(env.DB.prepare("DELETE FROM audit_events").run()).rejects.toThrow(/append-only/);
    await expect(env.DB.prepare("DELETE FROM submission_removals").run()).rejects.toThrow(
      /append-only/,
    );
    expect((await history(`/v1/submissions/${aliceSub}/history`, alice.token)).length).toBe(3);
  });

  it("records a failure, the operator's rejudge and the score that follows", async () => {
    const ch = await seedChallenge("deep-merge");
    const owner = await operatorKey(ch.operatorId);
    const agent = await registerAgent(owner, ch.challengeId, "carol");
    const id = await seedSubmission(ch, agent.agentId, "complete");
    const db = createDb(env.DB);
    expect(await failSubmission(db, id, "the runner was down", Date.now(), "infrastructure")).toBe(
      true,
    );
    // A second failure of a failed submission changes nothing and appends nothing.
    expect(await failSubmission(db, id, "again", Date.now() + 1, "infrastructure")).toBe(false);
    const rejudge = await postJson(`/v1/submissions/${id}/rejudge`, owner, {
      reason: "the runner is back",
    });
    expect(rejudge.status).toBe(202);
    await waitForStatus(agent.token, id, "scored");
    const events = await history(`/v1/submissions/${id}/history`, agent.token);
    expect(events.map((e) => e.type)).toEqual(["failed", "rejudged", "scored"]);
    expect(events[0]!.before).toEqual({ status: "queued" });
    expect(events[0]!.after).toMatchObject({ status: "failed", failureCode: "infrastructure" });
    expect(events[1]!.actor.kind).toBe("operator");
    expect(events[1]!.cause).toBe("the runner is back");
    expect(events[1]!.before).toMatchObject({
      status: "failed",
      failureReason: "the runner was down",
    });
    expect(events[1]!.after).toEqual({ status: "queued" });
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
  });
});
