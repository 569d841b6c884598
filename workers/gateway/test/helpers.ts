/**
 * Test helpers: calls through the platform Worker's fetch, an operator, agents with keys and
 * challenges seeded into D1 through @bouts/db, the fake model's record of what it received, and
 * the gateway_calls rows a test's calls left.
 */
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import {
  createDb,
  enterChallenge,
  insertAgentWithKey,
  insertApiKey,
  insertChallenge,
  insertOperator,
  mintApiKey,
  type ChallengeRow,
  type GatewayCallRow,
} from "@bouts/db";
import type { FakeModelRequest } from "@bouts/fixtures";

/** Sends a request through the platform Worker's fetch handler. */
export function call(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  return exports.default.fetch(new Request(`http://api.test${path}`, { ...init, headers }));
}

/** The gateway's chat-completions path of a challenge. */
export const completions = (challengeId: string) =>
  `/v1/challenges/${challengeId}/gateway/v1/chat/completions`;

/** Posts a chat completion as `token`. */
export function chat(challengeId: string, token: string, body: unknown) {
  return call(completions(challengeId), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    token,
  });
}

/** Reads a problem+json answer and checks its status. */
export async function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  const body = await res.json<{ status: number; type: string; detail: string }>();
  expect(body.status).toBe(status);
  return body;
}

/** An agent with its key. */
export interface Agent {
  id: string;
  token: string;
}

let counter = 0;
const uid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter += 1)}`;

/** An operator, its challenges (published unless `over` says otherwise) and agents with keys. */
export async function seedWorld(
  options: { challenges?: Partial<ChallengeRow>[]; agents?: number } = {},
): Promise<{ operatorId: string; challenges: string[]; agents: Agent[] }> {
  const db = createDb(env.DB);
  const now = Date.now();
  const operatorId = uid("op");
  await insertOperator(db, { id: operatorId, name: "ops", createdAt: now });
  const challenges: string[] = [];
  for (const over of options.challenges ?? [{}]) {
    const id = uid("ch");
    await insertChallenge(db, {
      id,
      slug: `slug-${id}`,
      title: `Challenge ${id}`,
      description: "",
      status: "published",
      profile: "agent",
      family: "default",
      customWeights: null,
      rankingMode: "latest",
      maxIterations: 10,
      limits: "{}",
      bundleKey: null,
      bundleSha256: null,
      bundleManifest: null,
      qaReport: null,
      qaPassed: true,
      createdBy: operatorId,
      createdAt: now,
      updatedAt: now,
      publishedAt: now,
      closedAt: null,
      closesAt: null,
      version: 1,
      ...over,
    });
    challenges.push(id);
  }
  const agents: Agent[] = [];
  for (let i = 0; i < (options.agents ?? 1); i++) {
    const id = uid("agent");
    const key = await mintApiKey();
    await insertAgentWithKey(
      db,
      { id, name: id, operatorId, createdAt: now, baselineKind: null, baselineOf: null },
      {
        id: key.id,
        role: "agent",
        agentId: id,
        operatorId: null,
        secretHash: key.secretHash,
        label: null,
        createdAt: now,
        revokedAt: null,
      },
    );
    agents.push({ id, token: key.token });
  }
  return { operatorId, challenges, agents };
}

/** Enters `agent` into `challengeId`. */
export async function enter(agent: Agent, challengeId: string) {
  await enterChallenge(createDb(env.DB), {
    agentId: agent.id,
    challengeId,
    enteredAt: Date.now(),
  });
}

/** An operator key of `operatorId`. */
export async function operatorToken(operatorId: string): Promise<string> {
  const key = await mintApiKey();
  await insertApiKey(createDb(env.DB), {
    id: key.id,
    role: "operator",
    agentId: null,
    operatorId,
    secretHash: key.secretHash,
    label: null,
    createdAt: Date.now(),
    revokedAt: null,
  });
  return key.token;
}

/** What the fake model received whose body contains `marker`. */
export async function receivedWith(marker: string): Promise<FakeModelRequest[]> {
  const origin = new URL(env.FAKE_MODEL_URL).origin;
  const all = await (await fetch(`${origin}/__received`)).json<FakeModelRequest[]>();
  return all.filter((r) => r.body.includes(marker));
}

/** The gateway_calls rows of an agent, oldest first. */
export async function callsOf(agentId: string): Promise<GatewayCallRow[]> {
  const { results } = await env.DB.prepare(
    `SELECT id, agent_id AS agentId, challenge_id AS challengeId, model, tokens_in AS tokensIn,
            tokens_out AS tokensOut, status, failure, streamed, request_bytes AS requestBytes,
            started_at AS startedAt, finished_at AS finishedAt
       FROM gateway_calls WHERE agent_id = ?1 ORDER BY started_at, rowid`,
  )
    .bind(agentId)
    .all<Omit<GatewayCallRow, "streamed"> & { streamed: number }>();
  return results.map((r) => ({ ...r, streamed: r.streamed === 1 }));
}

/** A unique marker for a test's messages, to find its requests at the fake. */
export const marker = () => uid("marker");
