/**
 * The public read API end to end: challenge reads, leaderboard pages and standings with their
 * ETags, 304s, Cache-Control and the versioned edge cache, CORS, problem+json errors, the
 * per-IP rate limit and the WebSocket route. Most calls go through the Worker's fetch
 * (`exports.default`, the platform app); change-visibility tests mount this role's routes in
 * an app whose version cache is off, so they need not wait out its TTL.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { z } from "@hono/zod-openapi";
import { challenges, createDb } from "@bouts/db";
import { eq } from "drizzle-orm";
import { createApp } from "@bouts/edge";
import { createLeaderboardRoutes, type LeaderboardEnv } from "../src/index.ts";
import { PublicChallengeSchema } from "../src/schemas.ts";
import { expectProblem, result, seedChallenge } from "./helpers.ts";

const ORIGIN = "https://leaderboard.test";

function get(path: string, headers: Record<string, string> = {}) {
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { headers }));
}

const uncachedApp = createApp<LeaderboardEnv>().route(
  "/",
  createLeaderboardRoutes({ cache: { versionTtlSeconds: 0 } }),
);
async function getUncached(path: string, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const res = await uncachedApp.fetch(new Request(`${ORIGIN}${path}`, { headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function boardWith(scores: Record<string, number>) {
  const seeded = await seedChallenge();
  const board = env.LEADERBOARD.getByName(seeded.challengeId);
  for (const [agent, score] of Object.entries(scores)) {
    const r = await board.recordResult(result(seeded.challengeId, agent, score));
    expect(r.ok).toBe(true);
  }
  return { ...seeded, board };
}

type Page = {
  version: number;
  total: number;
  next: string | null;
  entries: { rank: number; agentId: string; score: number; band: string }[];
  bands: Record<string, number>;
};

describe("challenges", () => {
  it("lists published challenges only, with public fields only", async () => {
    const published = await seedChallenge();
    const draft = await seedChallenge({ status: "draft" });
    const closed = await seedChallenge({ status: "closed" });
    const res = await get("/v1/challenges");
    expect(res.status).toBe(200);
    const { challenges } = await res.json<{ challenges: Record<string, unknown>[] }>();
    const ids = challenges.map((c) => c.id);
    expect(ids).toContain(published.challengeId);
    expect(ids).not.toContain(draft.challengeId);
    expect(ids).not.toContain(closed.challengeId);
    const text = JSON.stringify(challenges);
    for (const secret of ["bundle", "hidden-test-name", "qaReport", "secretTests"]) {
      expect(text).not.toContain(secret);
    }
    const closedList = await (
      await get("/v1/challenges?status=closed")
    ).json<{
      challenges: { id: string }[];
    }>();
    expect(closedList.challenges.map((c) => c.id)).toContain(closed.challengeId);
  });

  it("reads one challenge by id or slug; a draft is 404", async () => {
    const { challengeId } = await seedChallenge({ slug: "public-one" });
    const bySlug = await get("/v1/challenges/public-one");
    expect(bySlug.status).toBe(200);
    expect(await bySlug.json()).toMatchObject({
      id: challengeId,
      status: "published",
      links: { leaderboard: `/v1/challenges/${challengeId}/leaderboard` },
    });
    const draft = await seedChallenge({ status: "draft" });
    await expectProblem(await get(`/v1/challenges/${draft.challengeId}`), 404);
    await expectProblem(await get(`/v1/challenges/${draft.challengeId}/leaderboard`), 404);
    await expectProblem(await get("/v1/challenges/no..such"), 400);
  });

  it("answers exactly the documented fields, every timestamp RFC 3339 (the deadline too)", async () => {
    const { challengeId } = await seedChallenge();
    const deadline = Date.UTC(2031, 0, 2, 3, 4, 5);
    await createDb(env.DB)
      .update(challenges)
      .set({ closesAt: deadline })
      .where(eq(challenges.id, challengeId));
    const body = await (await get(`/v1/challenges/${challengeId}`)).json();
    // Closed: an undocumented field fails the parse.
    const view = z.strictObject(PublicChallengeSchema.shape).parse(body);
    expect(view.closesAt).toBe("2031-01-02T03:04:05.000Z");
    const list = await (await get("/v1/challenges")).json<{ challenges: unknown[] }>();
    for (const c of list.challenges) z.strictObject(PublicChallengeSchema.shape).parse(c);
  });
});

describe("history paging", () => {
  it("documents the largest `after` it accepts, and accepts it", async () => {
    type Param = { name: string; schema: { maximum?: number } };
    const doc = await (
      await get("/openapi.json")
    ).json<{
      paths: Record<string, { get: { parameters: Param[] } }>;
    }>();
    for (const route of ["/v1/challenges/{id}/history", "/v1/submissions/{id}/history"]) {
      const after = doc.paths[route]!.get.parameters.find((p) => p.name === "after")!;
      expect(after.schema.maximum).toBe(999_999_999_999_999);
    }
    const { challengeId } = await seedChallenge();
    const top = await get(`/v1/challenges/${challengeId}/history?after=999999999999999`);
    expect(top.status).toBe(200);
    await expectProblem(
      await get(`/v1/challenges/${challengeId}/history?after=1000000000000000`),
      400,
    );
  });
});

describe("leaderboard pages", () => {
  it("serves the board best first with bands, a weak ETag and Cache-Control", async () => {
    const { challengeId } = await boardWith({ a: 50, b: 92, c: 77 });
    const res = await get(`/v1/challenges/${challengeId}/leaderboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toBe('W/"3"');
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=5, stale-while-revalidate=30");
    const page = await res.json<Page>();
    expect(page.entries.map((e) => [e.rank, e.agentId, e.band])).toEqual([
      [1, "b", "elite"],
      [2, "c", "strong"],
      [3, "a", "struggling"],
    ]);
    expect(page).toMatchObject({ total: 3, next: null, version: 3 });
    expect(page.bands).toMatchObject({ elite: 1, strong: 1, struggling: 1, failed: 0 });
  });

  it("names each entry's agent (as stored, for the reader to escape), null when unknown", async () => {
    const seeded = await seedChallenge({ agents: 2 });
    const board = env.LEADERBOARD.getByName(seeded.challengeId);
    const [first, second] = seeded.agents;
    await board.recordResult(result(seeded.challengeId, first!.id, 80));
    await board.recordResult(result(seeded.challengeId, second!.id, 90));
    await board.recordResult(result(seeded.challengeId, "gone", 70));
    const page = await (
      await getUncached(`/v1/challenges/${seeded.challengeId}/leaderboard`)
    ).json<{ entries: { agentId: string; agentName: string | null }[] }>();
    expect(page.entries.map((e) => [e.agentId, e.agentName])).toEqual([
      [second!.id, "agent-1"],
      [first!.id, "agent-0"],
      ["gone", null],
    ]);
    const standing = await (
      await getUncached(`/v1/challenges/${seeded.challengeId}/agents/${first!.id}`)
    ).json<{ around: { agentName: string | null }[] }>();
    expect(standing.around.map((e) => e.agentName)).toEqual(["agent-1", "agent-0", null]);
  });

  it("answers If-None-Match with 304 until the board changes", async () => {
    const { challengeId, board } = await boardWith({ a: 50 });
    const path = `/v1/challenges/${challengeId}/leaderboard`;
    const first = await getUncached(path);
    const etag = first.headers.get("ETag")!;
    const again = await getUncached(path, { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("ETag")).toBe(etag);
    expect(await again.text()).toBe("");
    await board.recordResult(result(challengeId, "b", 60));
    const changed = await getUncached(path, { "If-None-Match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("ETag")).toBe('W/"2"');
    expect((await changed.json<Page>()).entries.map((e) => e.agentId)).toEqual(["b", "a"]);
  });

  it("serves repeated reads from the edge cache within the version TTL", async () => {
    const { challengeId, board } = await boardWith({ a: 50 });
    const path = `/v1/challenges/${challengeId}/leaderboard`;
    expect((await get(path)).headers.get("ETag")).toBe('W/"1"');
    await board.recordResult(result(challengeId, "b", 60));
    // The colo still trusts version 1 for up to 2 s: the cached body, no Durable Object read.
    const cached = await get(path);
    expect(cached.headers.get("ETag")).toBe('W/"1"');
    expect((await cached.json<Page>()).total).toBe(1);
    // Without the version cache the change is visible at once.
    const fresh = await getUncached(path);
    expect((await fresh.json<Page>()).total).toBe(2);
  });

  it("pages with a cursor, serves at most 100, and refuses a garbage cursor with 400", async () => {
    const scores = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`a${i}`, 40 + i]));
    const { challengeId } = await boardWith(scores);
    const base = `/v1/challenges/${challengeId}/leaderboard`;
    const first = await (await get(`${base}?limit=5`)).json<Page>();
    expect(first.entries).toHaveLength(5);
    const second = await (
      await get(`${base}?limit=5&cursor=${encodeURIComponent(first.next!)}`)
    ).json<Page>();
    expect(second.entries.map((e) => e.rank)).toEqual([6, 7, 8, 9, 10]);
    expect((await (await get(`${base}?limit=100000`)).json<Page>()).entries).toHaveLength(12);
    await expectProblem(await get(`${base}?limit=ten`), 400);
    const bad = await expectProblem(await get(`${base}?cursor=not-a-cursor`), 400);
    expect(bad.type).toBe("urn:bouts:problem:bad-cursor");
  });
});

describe("the limit of a page", () => {
  it.each(["", "0", "-5", "1.5", "1e2", " 5"])(
    "refuses limit=%j with a 400 problem naming limit",
    async (limit) => {
      const { challengeId } = await boardWith({ a: 1 });
      const res = await get(
        `/v1/challenges/${challengeId}/leaderboard?limit=${encodeURIComponent(limit)}`,
      );
      const problem = await expectProblem(res, 400);
      expect(problem.type).toBe("urn:bouts:problem:validation");
      expect(JSON.stringify(problem)).toContain('"path":"limit"');
    },
  );

  it("documents limit as an integer of at least 1", async () => {
    const doc = await (
      await get("/openapi.json")
    ).json<{
      paths: Record<string, { get: { parameters: { name: string; schema: unknown }[] } }>;
    }>();
    const limit = doc.paths["/v1/challenges/{id}/leaderboard"]!.get.parameters.find(
      (p) => p.name === "limit",
    );
    expect(limit?.schema).toMatchObject({ type: "integer", minimum: 1 });
    expect(limit?.schema).not.toHaveProperty("pattern");
  });
});

describe("standings", () => {
  it("shows one agent's rank, score, iterations, time, trajectory and neighbours", async () => {
    const { challengeId, board } = await boardWith({ a: 60, b: 70, c: 80 });
    await board.recordResult(result(challengeId, "a", 90, { iteration: 2 }));
    const res = await getUncached(`/v1/challenges/${challengeId}/agents/a`);
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toBe('W/"4"');
    expect(await res.json()).toMatchObject({
      agentId: "a",
      rank: 1,
      score: 90,
      iterations: 2,
      timeToFinalMs: 120_000,
      band: "elite",
      trajectory: [
        { iteration: 1, score: 60 },
        { iteration: 2, score: 90 },
      ],
      trajectoryClass: "improving",
      around: [{ agentId: "a" }, { agentId: "c" }, { agentId: "b" }],
    });
    const etag = res.headers.get("ETag")!;
    const unchanged = await getUncached(`/v1/challenges/${challengeId}/agents/a`, {
      "If-None-Match": etag,
    });
    expect(unchanged.status).toBe(304);
    await expectProblem(await get(`/v1/challenges/${challengeId}/agents/nobody`), 404);
  });
});

describe("cross-cutting", () => {
  it("answers CORS preflights and adds CORS headers without credentials", async () => {
    const { challengeId } = await boardWith({ a: 1 });
    const path = `${ORIGIN}/v1/challenges/${challengeId}/leaderboard`;
    const preflight = await exports.default.fetch(
      new Request(path, {
        method: "OPTIONS",
        headers: {
          Origin: "https://fans.example",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "If-None-Match",
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(preflight.headers.get("Access-Control-Allow-Methods")).toContain("GET");
    expect(preflight.headers.get("Access-Control-Allow-Credentials")).toBeNull();
    const res = await get(`/v1/challenges/${challengeId}/leaderboard`, {
      Origin: "https://fans.example",
    });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Access-Control-Expose-Headers")).toContain("ETag");
  });

  it("rate-limits public reads per client IP with 429 and Retry-After", async () => {
    const spy = vi.spyOn(env.API_RATE_LIMIT, "limit").mockResolvedValueOnce({ success: false });
    const res = await get("/v1/challenges", { "cf-connecting-ip": "203.0.113.9" });
    const problem = await expectProblem(res, 429);
    expect(problem.type).toBe("urn:bouts:problem:rate-limited");
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(spy).toHaveBeenCalledWith({ key: "ip:203.0.113.9" });
    spy.mockRestore();
  });

  it("answers an unknown route with a problem document", async () => {
    await expectProblem(await get("/v1/nothing-here"), 404);
  });
});

describe("websocket", () => {
  it("upgrades through the Worker and pushes rank changes", async () => {
    const { challengeId, board } = await boardWith({ a: 50 });
    const res = await get(`/v1/challenges/${challengeId}/leaderboard/ws`, {
      Upgrade: "websocket",
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const received = new Promise<string>((resolve) => {
      ws.addEventListener("message", (e) => {
        resolve(String(e.data));
      });
    });
    await board.recordResult(result(challengeId, "b", 70));
    expect(JSON.parse(await received)).toMatchObject({
      type: "rank-changed",
      version: 2,
      changes: [{ agentId: "b", rank: 1, previousRank: null, score: 70 }, { agentId: "a" }],
    });
    ws.close(1000, "done");
  });

  it("refuses a plain GET on the WebSocket route with 426", async () => {
    const { challengeId } = await boardWith({ a: 50 });
    await expectProblem(await get(`/v1/challenges/${challengeId}/leaderboard/ws`), 426);
  });
});
