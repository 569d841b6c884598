/**
 * @module ingest/routes/agents
 * Operator routes: register agents, issue and revoke their keys. Invariants: an operator sees
 * and manages only the agents it registered (others are 404); a key's secret appears in
 * exactly one response, the one that created it.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  createDb,
  findAgent,
  findApiKey,
  insertAgentWithKey,
  insertApiKey,
  listAgentKeys,
  listOperatorAgents,
  revokeApiKey,
  summarizeRunnerUsage,
  type ApiKeyRow,
  mintApiKey,
} from "@bouts/db";
import { ACCESS_PROBLEMS, operatorIdOf, operatorOnly } from "@bouts/auth";
import { createRouter, json, problems, SECURITY } from "@bouts/edge";
import { readConfig } from "../config.ts";
import { fail } from "../errors.ts";
import type { IngestEnv } from "../types.ts";
import {
  AgentKeySchema,
  AgentSchema,
  CreateAgentBodySchema,
  IdParamSchema,
  IssueKeyBodySchema,
  KeyInfoSchema,
  RunnerUsageSchema,
} from "../schemas.ts";
import { agentToWire, keyToWire } from "../views.ts";

export const agentRoutes = createRouter<IngestEnv>();

const OPERATOR = ACCESS_PROBLEMS.operator;

const tags = ["operators"];

async function mintAgentKey(agentId: string, label: string | null, now: number) {
  const minted = await mintApiKey();
  const row: ApiKeyRow = {
    id: minted.id,
    role: "agent",
    agentId,
    operatorId: null,
    secretHash: minted.secretHash,
    label,
    createdAt: now,
    revokedAt: null,
  };
  return { row, token: minted.token };
}

agentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/agents",
    tags,
    summary: "Register an agent and issue its first key",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { body: { ...json(CreateAgentBodySchema), required: true } },
    responses: {
      201: json(AgentKeySchema, "The agent and its first key (the secret shown once)"),
      ...problems(...OPERATOR, 400, 415),
    },
  }),
  async (c) => {
    const operatorId = operatorIdOf(c.var.principal);
    const { name } = c.req.valid("json");
    const now = Date.now();
    // Never a baseline: only a challenge's publish step creates those (ingest/baselines.ts).
    const agent = {
      id: crypto.randomUUID(),
      name,
      operatorId,
      createdAt: now,
      baselineKind: null,
      baselineOf: null,
    };
    const key = await mintAgentKey(agent.id, "initial", now);
    await insertAgentWithKey(createDb(c.env.DB), agent, key.row);
    return c.json(
      { agent: agentToWire(agent), key: { ...keyToWire(key.row), key: key.token } },
      201,
    );
  },
);

agentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/agents",
    tags,
    summary: "List the agents this operator registered",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    responses: {
      200: json(z.object({ agents: z.array(AgentSchema) }), "The agents"),
      ...problems(...OPERATOR),
    },
  }),
  async (c) => {
    const rows = await listOperatorAgents(createDb(c.env.DB), operatorIdOf(c.var.principal));
    return c.json({ agents: rows.map(agentToWire) }, 200);
  },
);

async function ownAgent(db: ReturnType<typeof createDb>, operatorId: string, id: string) {
  const agent = await findAgent(db, id);
  if (!agent || agent.operatorId !== operatorId) fail({ reason: "not-found", resource: "agent" });
  return agent;
}

agentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/agents/{id}/keys",
    tags,
    summary: "List an agent's keys (never their secrets)",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(z.object({ keys: z.array(KeyInfoSchema) }), "The keys"),
      ...problems(...OPERATOR, 400, 404),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const agent = await ownAgent(db, operatorIdOf(c.var.principal), c.req.valid("param").id);
    const keys = await listAgentKeys(db, agent.id);
    return c.json({ keys: keys.map(keyToWire) }, 200);
  },
);

agentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/agents/{id}/usage",
    tags,
    summary: "An agent's runner time over the usage window, by challenge, against its ceiling",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: IdParamSchema },
    responses: {
      200: json(RunnerUsageSchema, "The agent's runner time"),
      ...problems(...OPERATOR, 400, 404),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const agent = await ownAgent(db, operatorIdOf(c.var.principal), c.req.valid("param").id);
    const cfg = readConfig(c.env);
    const now = Date.now();
    const byChallenge = await summarizeRunnerUsage(db, agent.id, now - cfg.runnerWindowMs);
    const usedMs = byChallenge.reduce((sum, r) => sum + r.runnerMs, 0);
    return c.json(
      {
        agentId: agent.id,
        windowSeconds: cfg.runnerWindowMs / 1000,
        ceilingSeconds: cfg.runnerCeilingMs / 1000,
        usedSeconds: usedMs / 1000,
        remainingSeconds: Math.max(0, cfg.runnerCeilingMs - usedMs) / 1000,
        challenges: byChallenge.map((r) => ({
          challengeId: r.challengeId,
          runs: r.runs,
          runnerSeconds: r.runnerMs / 1000,
          lastRunAt: new Date(r.lastRecordedAt).toISOString(),
        })),
      },
      200,
    );
  },
);

agentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/agents/{id}/keys",
    tags,
    summary: "Issue a new key for an agent",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: { params: IdParamSchema, body: { ...json(IssueKeyBodySchema), required: false } },
    responses: {
      201: json(AgentKeySchema, "The agent and its new key (the secret shown once)"),
      ...problems(...OPERATOR, 400, 404, 415),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const agent = await ownAgent(db, operatorIdOf(c.var.principal), c.req.valid("param").id);
    const key = await mintAgentKey(agent.id, c.req.valid("json").label ?? null, Date.now());
    await insertApiKey(db, key.row);
    return c.json(
      { agent: agentToWire(agent), key: { ...keyToWire(key.row), key: key.token } },
      201,
    );
  },
);

agentRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/keys/{id}",
    tags,
    summary: "Revoke a key of one of this operator's agents (or one of its own keys)",
    security: SECURITY.operator,
    middleware: [operatorOnly] as const,
    request: {
      params: z.object({
        id: z
          .string()
          .regex(/^[0-9a-f]{24}$/, "a key id")
          .openapi({ param: { name: "id", in: "path" } }),
      }),
    },
    responses: {
      200: json(KeyInfoSchema, "The revoked key"),
      ...problems(...OPERATOR, 400, 404, 409),
    },
  }),
  async (c) => {
    const db = createDb(c.env.DB);
    const operatorId = operatorIdOf(c.var.principal);
    const key = await findApiKey(db, c.req.valid("param").id);
    const owned =
      key &&
      (key.operatorId === operatorId ||
        (key.agentId !== null && (await findAgent(db, key.agentId))?.operatorId === operatorId));
    if (!key || !owned) fail({ reason: "not-found", resource: "key" });
    const now = Date.now();
    if (!(await revokeApiKey(db, key.id, now))) {
      fail({ reason: "conflict", detail: "The key was already revoked." });
    }
    return c.json(keyToWire({ ...key, revokedAt: now }), 200);
  },
);
