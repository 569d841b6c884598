/**
 * End to end through the HTTP API: an agent registered by an operator enters a published
 * challenge and submits archives; the submissions queue delivers them to the score role,
 * which runs them in the real sandboxed runner, judges, scores and ranks them; the public
 * API then shows the leaderboard and the breakdowns.
 */
import { env, exports } from "cloudflare:workers";
import { createDb, insertApiKey, insertOperator } from "@bouts/db";
import { mintApiKey } from "@bouts/db/keys";
import { describe, expect, it } from "vitest";
import { seedChallenge } from "./helpers.ts";

const ORIGIN = "http://bouts.test";
const call = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }));
};

async function seedOperatorKey(): Promise<string> {
  const db = createDb(env.DB);
  const id = crypto.randomUUID();
  await insertOperator(db, { id, name: "e2e", createdAt: Date.now() });
  const key = await mintApiKey();
  await insertApiKey(db, {
    id: key.id,
    role: "operator",
    agentId: null,
    operatorId: id,
    secretHash: key.secretHash,
    label: "e2e",
    createdAt: Date.now(),
    revokedAt: null,
  });
  return key.token;
}

async function submitAs(operatorToken: string, challengeId: string, kind: string) {
  const agent = await call("/v1/agents", {
    method: "POST",
    token: operatorToken,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: `e2e-${kind}` }),
  });
  expect(agent.status).toBe(201);
  const { agent: a, key } = await agent.json<{ agent: { id: string }; key: { key: string } }>();
  expect(
    (await call(`/v1/challenges/${challengeId}/entries`, { method: "POST", token: key.key }))
      .status,
  ).toBe(201);
  const archive = await (
    await env.FIXTURES.fetch(`http://fixtures/submission/notes-api/${kind}`)
  ).arrayBuffer();
  const form = new FormData();
  form.set("archive", new Blob([archive]), "solution.tar.gz");
  const res = await call(`/v1/challenges/${challengeId}/submissions`, {
    method: "POST",
    token: key.key,
    body: form,
  });
  expect(res.status).toBe(202);
  const { id } = await res.json<{ id: string }>();
  return { agentId: a.id, token: key.key, submissionId: id };
}

async function waitForScore(s: { token: string; submissionId: string }) {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const res = await call(`/v1/submissions/${s.submissionId}`, { token: s.token });
    const body = await res.json<{ status: string; failureReason: string | null }>();
    if (body.status === "scored") return;
    if (body.status === "failed") throw new Error(`submission failed: ${body.failureReason}`);
    if (Date.now() > deadline) throw new Error(`still ${body.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("submit → queue → run → judge → score → rank, through the API", () => {
  it("ranks the complete solution first and publishes the math", async () => {
    const operator = await seedOperatorKey();
    const challenge = await seedChallenge("notes-api");
    const complete = await submitAs(operator, challenge.challengeId, "complete");
    const partial = await submitAs(operator, challenge.challengeId, "partial");
    await Promise.all([waitForScore(complete), waitForScore(partial)]);

    const board = await call(`/v1/challenges/${challenge.challengeId}/leaderboard`);
    expect(board.status).toBe(200);
    const { entries } = await board.json<{
      entries: { rank: number; agentId: string; score: number }[];
    }>();
    expect(entries.map((e) => e.agentId)).toEqual([complete.agentId, partial.agentId]);
    expect(entries[0]!.score).toBeGreaterThan(entries[1]!.score);

    const open = await call(`/v1/submissions/${complete.submissionId}/breakdown`);
    expect(open.status).toBe(200);
    const body = await open.json<{
      view: string;
      final: { rounded: number; unrounded: string };
      breakdown: { components: { key: string; weight: number }[]; math: string[] };
    }>();
    expect(body.view).toBe("public");
    expect(body.final.rounded).toBe(entries[0]!.score);
    expect(body.breakdown.components.map((c) => c.weight)).toEqual([35, 15, 20, 15, 10, 5]);
    expect(body.breakdown.math.at(-1)).toContain(`→ rounded half-up → ${body.final.rounded}`);
    // The offline default panel is static analysis: the breakdown says so, judge by judge.
    const { judging, flags } = body.breakdown as unknown as {
      judging: { panel: string; judges: { kind: string }[] };
      flags: { code: string }[];
    };
    expect(judging.panel).toBe("heuristic");
    expect(judging.judges.length).toBeGreaterThanOrEqual(3);
    expect(judging.judges.every((j) => j.kind === "heuristic")).toBe(true);
    expect(flags.map((f) => f.code)).toContain("heuristic-judges");
    const mine = await call(`/v1/submissions/${complete.submissionId}/breakdown`, {
      token: complete.token,
    });
    expect((await mine.json<{ view: string }>()).view).toBe("owner");
  });
});
