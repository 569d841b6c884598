/**
 * Baselines through the HTTP API and the submissions queue: the operator publishes notes-api
 * (real runner QA), whose manifest declares the reference solution and a stub as baselines; the
 * publish step queues them and the score role scores them with the same pipeline; the board
 * shows them as marked reference lines with no rank. Hostile: a baseline with a top score does
 * not displace rank 1, and an agent cannot register as a baseline (the flag cannot be sent, and
 * a name that looks like one ranks as an ordinary agent).
 */
import { env, exports } from "cloudflare:workers";
import { createDb, insertApiKey, insertOperator } from "@bouts/db";
import { mintApiKey } from "@bouts/db/keys";
import { describe, expect, it } from "vitest";

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

async function operatorKey(): Promise<string> {
  const db = createDb(env.DB);
  const id = crypto.randomUUID();
  await insertOperator(db, { id, name: "baselines", createdAt: Date.now() });
  const key = await mintApiKey();
  await insertApiKey(db, {
    id: key.id,
    role: "operator",
    agentId: null,
    operatorId: id,
    secretHash: key.secretHash,
    label: "baselines",
    createdAt: Date.now(),
    revokedAt: null,
  });
  return key.token;
}

const fixture = async (path: string) =>
  new Uint8Array(await (await env.FIXTURES.fetch(`http://fixtures/${path}`)).arrayBuffer());

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 170_000;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

interface Line {
  label: string;
  kind: string;
  score: number;
  afterRank: number;
  submissionId: string;
}

describe("baselines on the board", () => {
  it("scores the bundle's baselines at publish and shows them unranked", async () => {
    const op = await operatorKey();
    const created = await postJson("/v1/challenges", op, {
      slug: "notes-api",
      title: "Notes API",
      profile: "engineering",
      maxIterations: 5,
    });
    expect(created.status).toBe(201);
    const { id } = await created.json<{ id: string }>();
    const up = await call(`/v1/challenges/${id}/bundle`, {
      method: "PUT",
      token: op,
      headers: { "content-type": "application/gzip" },
      body: await fixture("bundle/notes-api"),
    });
    expect(up.status).toBe(200);
    const published = await call(`/v1/challenges/${id}/publish`, { method: "POST", token: op });
    expect(published.status).toBe(200);

    // The publish step queued both baselines; the score role scores them like any entrant.
    const board = env.LEADERBOARD.getByName(id);
    const lines = await until("both baselines", async () => {
      const l = (await board.getBaselines()) as Line[];
      return l.length === 2 ? l : null;
    });
    const reference = lines.find((l) => l.kind === "reference")!;
    const stub = lines.find((l) => l.kind === "stub")!;
    expect(reference.label).toBe("reference solution");
    expect(reference.score).toBeGreaterThan(stub.score);
    expect((await board.getBandCounts()).total).toBe(0); // nobody ranked yet

    // Hostile: the agent route has no baseline flag; a look-alike name is an ordinary agent.
    const smuggled = await postJson("/v1/agents", op, {
      name: "reference solution",
      baselineKind: "reference",
    });
    expect(smuggled.status).toBe(400);
    const reg = await postJson("/v1/agents", op, { name: "reference solution" });
    expect(reg.status).toBe(201);
    const { agent, key } = await reg.json<{ agent: { id: string }; key: { key: string } }>();
    expect(
      (await call(`/v1/challenges/${id}/entries`, { method: "POST", token: key.key })).status,
    ).toBe(201);
    const form = new FormData();
    form.set("archive", new Blob([await fixture("submission/notes-api/partial")]), "a.tar.gz");
    const sub = await call(`/v1/challenges/${id}/submissions`, {
      method: "POST",
      token: key.key,
      body: form,
    });
    expect(sub.status).toBe(202);
    const { id: subId } = await sub.json<{ id: string }>();
    await until("the agent's score", async () => {
      const s = await (
        await call(`/v1/submissions/${subId}`, { token: key.key })
      ).json<{
        status: string;
      }>();
      if (s.status === "failed") throw new Error("the submission failed");
      return s.status === "scored" ? true : null;
    });

    // The reference outscores the agent, yet the agent is rank 1 of 1; the line takes no rank.
    const standing = await board.getStanding(agent.id);
    expect(standing).toMatchObject({ rank: 1, total: 1 });
    expect(standing!.score).toBeLessThan(reference.score);
    const res = await call(`/v1/challenges/${id}/leaderboard`);
    expect(res.status).toBe(200);
    const page = await res.json<{
      total: number;
      entries: { rank: number; agentId: string }[];
      baselines: Line[];
    }>();
    expect(page.total).toBe(1);
    expect(page.entries).toEqual([expect.objectContaining({ rank: 1, agentId: agent.id })]);
    const shown = new Map(page.baselines.map((l) => [l.kind, l]));
    expect(shown.get("reference")).toMatchObject({ afterRank: 0 });
    expect(shown.get("stub")!.afterRank).toBe(standing!.score >= stub.score ? 1 : 0);
    // The agent that looks like a baseline is not one.
    expect(page.baselines.map((l) => l.submissionId)).not.toContain(subId);

    // The page draws them as marked, unranked reference lines; a baseline's math is public.
    const html = await (await call(`/challenges/${id}`)).text();
    expect(html).toContain('class="baseline" data-baseline="reference"');
    expect(html).toContain("reference line: takes no rank");
    expect((await call(`/v1/submissions/${reference.submissionId}/breakdown`)).status).toBe(200);

    // A rebuild keeps the baselines apart from the ranking.
    const rebuilt = await postJson(`/v1/challenges/${id}/leaderboard/rebuild`, op, {});
    expect(await rebuilt.json()).toMatchObject({ agents: 1, results: 1 });
    expect((await board.getBaselines()).length).toBe(2);
  });
});
