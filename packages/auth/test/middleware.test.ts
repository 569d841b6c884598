import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { mintApiKey, type MintedKey } from "@bouts/db";
import { createApp } from "@bouts/edge";
import {
  agentOnly,
  keyOrPublic,
  limitByIp,
  operatorOnly,
  optionalKey,
  type AuthBindings,
} from "../src/index.ts";

// ─── Fakes: a D1 that knows the given api_keys rows, and a scriptable rate limiter ───

type KeyRow = {
  id: string;
  role: "agent" | "operator";
  agent_id: string | null;
  operator_id: string | null;
  secret_hash: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
};

/** Answers drizzle's `select … from "api_keys" where "id" = ?` from `rows`; nothing else. */
function fakeD1(rows: KeyRow[]): D1Database {
  const lookups: string[] = [];
  const prepare = (sql: string) => ({
    bind: (...params: unknown[]) => ({
      raw: () => {
        const row = /from "api_keys"/.test(sql) ? rows.find((r) => r.id === params[0]) : null;
        if (typeof params[0] === "string") lookups.push(params[0]);
        if (!row) return Promise.resolve([]);
        const columns = [...sql.slice(0, sql.indexOf(" from ")).matchAll(/"([a-z_]+)"/g)].map(
          (m) => m[1] as keyof KeyRow,
        );
        return Promise.resolve([columns.map((c) => row[c])]);
      },
      all: () => Promise.resolve({ results: [] }),
    }),
  });
  return { prepare, lookups } as unknown as D1Database;
}

function fakeLimiter(allow = true) {
  return { limit: vi.fn(() => Promise.resolve({ success: allow })) };
}

const row = (key: MintedKey, owner: { agent?: string; operator?: string }): KeyRow => ({
  id: key.id,
  role: owner.agent ? "agent" : "operator",
  agent_id: owner.agent ?? null,
  operator_id: owner.operator ?? null,
  secret_hash: key.secretHash,
  label: null,
  created_at: 0,
  revoked_at: null,
});

let agentKey: MintedKey;
let operatorKey: MintedKey;
let env: AuthBindings & { API_RATE_LIMIT: ReturnType<typeof fakeLimiter> };
beforeAll(async () => {
  agentKey = await mintApiKey();
  operatorKey = await mintApiKey();
  env = {
    DB: fakeD1([row(agentKey, { agent: "ag1" }), row(operatorKey, { operator: "op1" })]),
    API_RATE_LIMIT: fakeLimiter(),
  };
});

const publicRead = createMiddleware(async (c, next) => {
  c.header("X-Public", "yes");
  await next();
});

function buildApp() {
  const app = createApp<{ Bindings: AuthBindings }>();
  const who = (c: Context) => c.json(c.get("principal") ?? c.get("caller"), 200);
  app.get("/agent", agentOnly, who);
  app.get("/operator", operatorOnly, who);
  app.get("/optional", optionalKey(publicRead), who);
  app.get("/either", keyOrPublic(publicRead), who);
  app.get("/public", limitByIp(), (c) => c.text("ok"));
  return app;
}

const get = (path: string, headers: Record<string, string> = {}, e: AuthBindings = env) =>
  buildApp().request(path, { headers }, e);
const bearer = (k: MintedKey) => ({ Authorization: `Bearer ${k.token}` });

describe("agentOnly and operatorOnly", () => {
  it("answer 401 with WWW-Authenticate and no lookup without a key", async () => {
    const res = await get("/agent");
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="bouts"');
    expect(await res.json()).toMatchObject({
      type: "urn:bouts:problem:unauthenticated",
      detail: "Send an API key: Authorization: Bearer <key>.",
    });
  });

  it("answer 401 to an unknown, forged or non-bearer key", async () => {
    const forged = `${agentKey.token.slice(0, 31)}${"x".repeat(43)}`;
    for (const header of [`Bearer ${forged}`, "Bearer not-a-key", `Basic ${agentKey.token}`]) {
      const res = await get("/operator", { Authorization: header });
      expect(res.status, header).toBe(401);
    }
  });

  it("let the right role through, with its principal", async () => {
    expect(await (await get("/agent", bearer(agentKey))).json()).toEqual({
      role: "agent",
      agentId: "ag1",
      keyId: agentKey.id,
    });
    expect((await get("/operator", bearer(operatorKey))).status).toBe(200);
  });

  it("answer 403 to the other role, after counting the call", async () => {
    const limiter = fakeLimiter();
    const res = await get("/agent", bearer(operatorKey), { ...env, API_RATE_LIMIT: limiter });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ detail: "This route needs an agent key." });
    expect(limiter.limit).toHaveBeenCalledWith({ key: "operator:op1" });
    const other = await get("/operator", bearer(agentKey));
    expect(await other.json()).toMatchObject({ detail: "This route needs an operator key." });
  });

  it("answer 429 with Retry-After once the owner's budget is spent", async () => {
    const limiter = fakeLimiter(false);
    const res = await get("/agent", bearer(agentKey), { ...env, API_RATE_LIMIT: limiter });
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(limiter.limit).toHaveBeenCalledWith({ key: "agent:ag1" });
  });
});

describe("optionalKey", () => {
  it("runs the public read, and is anonymous without a header or with an empty one", async () => {
    expect((await get("/optional")).headers.get("X-Public")).toBe("yes");
    expect(await (await get("/optional")).json()).toEqual({ role: "anonymous" });
    expect(await (await get("/optional", { Authorization: "" })).json()).toEqual({
      role: "anonymous",
    });
  });

  it("verifies a key, and refuses one that does not verify instead of downgrading", async () => {
    expect(await (await get("/optional", bearer(agentKey))).json()).toMatchObject({
      role: "agent",
    });
    const res = await get("/optional", { Authorization: "Basic abc" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      detail: expect.stringMatching(/public view/) as string,
    });
  });
});

describe("keyOrPublic", () => {
  it("runs the public read without an Authorization header", async () => {
    const res = await get("/either");
    expect(res.headers.get("X-Public")).toBe("yes");
    expect(await res.json()).toEqual({ role: "anonymous" });
  });

  it("is a keyed call, rate-limited per owner, when the header is present", async () => {
    const limiter = fakeLimiter();
    const res = await get("/either", bearer(operatorKey), { ...env, API_RATE_LIMIT: limiter });
    expect(res.headers.get("X-Public")).toBeNull();
    expect(await res.json()).toMatchObject({ role: "operator", operatorId: "op1" });
    expect(limiter.limit).toHaveBeenCalledWith({ key: "operator:op1" });
    expect((await get("/either", { Authorization: "" })).status).toBe(401);
  });
});

describe("limitByIp", () => {
  it("counts public reads per client IP and answers 429 past the budget", async () => {
    const limiter = fakeLimiter(false);
    const res = await get(
      "/public",
      { "cf-connecting-ip": "203.0.113.9" },
      {
        ...env,
        API_RATE_LIMIT: limiter,
      },
    );
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(await res.json()).toMatchObject({ detail: "Too many requests; slow down." });
    expect(limiter.limit).toHaveBeenCalledWith({ key: "ip:203.0.113.9" });
  });
});
