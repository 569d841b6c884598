/**
 * Failures on the platform's side: they cost no iteration, a waiting submission shows why and
 * when it is retried, and the owning operator can re-judge one (audited; 409 otherwise).
 */
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
} from "./helpers.ts";

let counter = 0;
const solution = () =>
  tarGz({ "src/index.js": `export const n = ${++counter};\n`, "NOTES.md": "n" });

async function arena(maxIterations = 1) {
  const op = await seedOperator();
  const agent = await createAgent(op.token);
  const id = await publishedChallenge(op.token, `c${crypto.randomUUID().slice(0, 8)}`, {
    maxIterations,
  });
  expect(
    (await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token })).status,
  ).toBe(201);
  return { op, agent, id };
}

async function submitOne(id: string, token: string): Promise<string> {
  const res = await submit(id, token, submissionForm(await solution()));
  expect(res.status).toBe(202);
  return (await res.json<{ id: string }>()).id;
}

const setRow = (id: string, sql: string, ...params: unknown[]) =>
  env.DB.prepare(`UPDATE submissions SET ${sql} WHERE id = ?`)
    .bind(...params, id)
    .run();
const failAs = (id: string, code: string) =>
  setRow(
    id,
    "status = 'failed', failure_code = ?, failure_reason = 'runner down for a day', failed_at = ?",
    code,
    Date.now(),
  );

describe("failures on the platform's side", () => {
  it("do not count against the challenge's quota", async () => {
    const { agent, id } = await arena(1);
    const first = await submitOne(id, agent.token);
    await failAs(first, "infrastructure");
    const second = await submitOne(id, agent.token);
    await failAs(second, "archive-refused");
    await expectProblem(await submit(id, agent.token, submissionForm(await solution())), 429);
  });

  it("show a waiting submission with the reason and the next attempt", async () => {
    const { agent, id } = await arena(3);
    const sub = await submitOne(id, agent.token);
    const since = Date.now() - 60_000;
    await setRow(
      sub,
      "status = 'waiting', waiting_reason = 'runner answered 503: busy', waiting_since = ?, retry_at = ?",
      since,
      since + 90_000,
    );
    const view = await (
      await call(`/v1/submissions/${sub}`, { token: agent.token })
    ).json<{
      status: string;
      waiting: { reason: string; since: string; retryAt: string } | null;
    }>();
    expect(view).toMatchObject({
      status: "waiting",
      waiting: {
        reason: "runner answered 503: busy",
        since: new Date(since).toISOString(),
        retryAt: new Date(since + 90_000).toISOString(),
      },
    });
    const list = await (
      await call(`/v1/challenges/${id}/submissions`, { token: agent.token })
    ).json<{ submissions: { status: string; waiting: unknown }[] }>();
    expect(list.submissions[0]).toMatchObject({ status: "waiting" });
  });
});

describe("POST /v1/submissions/{id}/rejudge", () => {
  it("re-queues an infrastructure failure and records who, when and why", async () => {
    const { op, agent, id } = await arena(3);
    const sub = await submitOne(id, agent.token);
    await failAs(sub, "infrastructure");
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const res = await callJson(
      `/v1/submissions/${sub}/rejudge`,
      "POST",
      { reason: "runner fleet outage 2026-11-30" },
      op.token,
    );
    expect(res.status).toBe(202);
    const body = await res.json<{
      submission: { status: string; failureCode: string | null };
      rejudge: { id: string; reason: string };
    }>();
    expect(body.submission).toMatchObject({ status: "queued", failureCode: null });
    expect(
      send.mock.calls.some(([m]) => (m as { submissionId: string }).submissionId === sub),
    ).toBe(true);
    send.mockRestore();
    const audit = await env.DB.prepare(
      "SELECT operator_id, reason, previous_failure_code, previous_failure_reason FROM submission_rejudges WHERE submission_id = ?",
    )
      .bind(sub)
      .all();
    expect(audit.results).toEqual([
      {
        operator_id: op.id,
        reason: "runner fleet outage 2026-11-30",
        previous_failure_code: "infrastructure",
        previous_failure_reason: "runner down for a day",
      },
    ]);
    // Queued again, it is no longer a failure: a second re-judge is refused.
    await expectProblem(
      await callJson(`/v1/submissions/${sub}/rejudge`, "POST", { reason: "again" }, op.token),
      409,
    );
  });

  it("answers 409 for a failure that is the submission's own, and records nothing", async () => {
    const { op, agent, id } = await arena(3);
    const sub = await submitOne(id, agent.token);
    await failAs(sub, "archive-refused");
    await expectProblem(
      await callJson(`/v1/submissions/${sub}/rejudge`, "POST", { reason: "please" }, op.token),
      409,
    );
    const n = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM submission_rejudges WHERE submission_id = ?",
    )
      .bind(sub)
      .first<{ n: number }>();
    expect(n!.n).toBe(0);
  });

  it("answers 404 to another operator and 403 to an agent", async () => {
    const { agent, id } = await arena(3);
    const sub = await submitOne(id, agent.token);
    await failAs(sub, "infrastructure");
    const stranger = await seedOperator("other");
    await expectProblem(
      await callJson(`/v1/submissions/${sub}/rejudge`, "POST", { reason: "x" }, stranger.token),
      404,
    );
    await expectProblem(
      await callJson(`/v1/submissions/${sub}/rejudge`, "POST", { reason: "x" }, agent.token),
      403,
    );
  });
});
