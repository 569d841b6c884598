/**
 * Challenge versions and shadow rescoring through the HTTP API and the submissions queue
 * (docs/design.md §30): deep-merge scored on version 1, then a second version that adds one
 * test is uploaded, put through the real runner's QA, and every counted submission re-run on it
 * by the queue consumer and the real runner. Hostile: while rescoring, nothing an agent reads
 * changes and no agent can read the report; a stale-version score is not written; a rescore
 * yields to live work; a promotion is all or nothing and a repeat changes nothing.
 */
import { env, exports } from "cloudflare:workers";
import {
  auditEvents,
  challenges,
  claimRescore,
  findScore,
  insertApiKey,
  listRescores,
  rescores,
  saveScore,
  scores,
  submissions,
  supersededScores,
  type ScoreWrite,
} from "@bouts/db";
import { mintApiKey } from "@bouts/db/keys";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { consumeSubmissions, processRescore } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";

const ORIGIN = "http://bouts.test";
const call = (path: string, token: string | null, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }));
};
const post = (path: string, token: string, body: unknown) =>
  call(path, token, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function mintKey(role: "agent" | "operator", owner: string): Promise<string> {
  const key = await mintApiKey();
  await insertApiKey(db(), {
    id: key.id,
    role,
    agentId: role === "agent" ? owner : null,
    operatorId: role === "operator" ? owner : null,
    secretHash: key.secretHash,
    label: role,
    createdAt: Date.now(),
    revokedAt: null,
  });
  return key.token;
}

async function problem(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  return (await res.json<{ detail: string }>()).detail;
}

async function bundleV2(): Promise<ArrayBuffer> {
  return (await env.FIXTURES.fetch("http://fixtures/bundle-v2/deep-merge")).arrayBuffer();
}

const upload = (id: string, token: string, bytes: ArrayBuffer, note = "adds array-over-object") =>
  call(`/v1/challenges/${id}/versions?note=${encodeURIComponent(note)}`, token, {
    method: "POST",
    headers: { "content-type": "application/gzip" },
    body: bytes,
  });

interface Version {
  version: number;
  state: string;
  rescores: { total: number; queued: number; running: number; scored: number; failed: number };
}

/** Polls the version until it leaves `rescoring` (the queue consumer runs the rescores). */
async function untilSettled(id: string, version: number, token: string): Promise<Version> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const v = await (await call(`/v1/challenges/${id}/versions/${version}`, token)).json<Version>();
    if (v.state !== "rescoring") return v;
    if (Date.now() > deadline) throw new Error(`still rescoring: ${JSON.stringify(v.rescores)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

type Board = { entries: { rank: number; agentId: string; score: number }[]; version: number };
const board = async (id: string) =>
  (await call(`/v1/challenges/${id}/leaderboard`, null)).json<Board>();

interface DiffReport {
  state: string;
  agents: {
    agentId: string;
    before: { rank: number; score: number } | null;
    after: { rank: number; score: number } | null;
    submissions: {
      submissionId: string;
      state: string;
      before: { score: number } | null;
      after: { score: number } | null;
      changedTests: { id: string; before: string | null; after: string | null }[];
    }[];
  }[];
}

/** deep-merge scored on version 1: complete, partial and insecure, one agent each. */
async function setUp() {
  const challenge = await seedChallenge("deep-merge");
  // A bundle's manifest id must be the challenge's slug: this one takes "deep-merge" over.
  await db()
    .update(challenges)
    .set({ slug: `old-${Date.now()}` })
    .where(eq(challenges.slug, "deep-merge"));
  await db()
    .update(challenges)
    .set({ slug: "deep-merge" })
    .where(eq(challenges.id, challenge.challengeId));
  const operator = await mintKey("operator", challenge.operatorId);
  const agents: Record<string, { agentId: string; submissionId: string }> = {};
  for (const which of ["complete", "partial", "insecure"]) {
    const agentId = await seedAgent(challenge);
    agents[which] = { agentId, submissionId: await seedSubmission(challenge, agentId, which) };
  }
  const batch = createMessageBatch(
    "bouts-submissions",
    Object.values(agents).map((a, i) => ({
      id: `m${i}`,
      timestamp: new Date(),
      attempts: 1,
      body: { v: 1, submissionId: a.submissionId },
    })),
  );
  const ctx = createExecutionContext();
  await consumeSubmissions(batch, env);
  expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(3);
  const agentToken = await mintKey("agent", agents.partial!.agentId);
  return { id: challenge.challengeId, challenge, operator, agents, agentToken };
}

describe("a second version of deep-merge, rescored in the shadows and promoted", () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  let before: Board;
  let report: DiffReport;
  const oldScores = new Map<string, number>();
  beforeAll(async () => {
    s = await setUp();
    before = await board(s.id);
    for (const a of Object.values(s.agents))
      oldScores.set(a.submissionId, (await findScore(db(), a.submissionId))!.finalRounded);
  }, 240_000);

  it("refuses an agent, a bad bundle and a bundle identical to the live one", async () => {
    expect((await upload(s.id, s.agentToken, await bundleV2())).status).toBe(403);
    await problem(
      await call(`/v1/challenges/${s.id}/versions`, s.operator, {
        method: "POST",
        headers: { "content-type": "application/gzip" },
        body: new TextEncoder().encode("not gzip"),
      }),
      415,
    );
    const live = await (
      await env.FIXTURES.fetch("http://fixtures/bundle/deep-merge")
    ).arrayBuffer();
    const sha = [...new Uint8Array(await crypto.subtle.digest("SHA-256", live))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    await db().update(challenges).set({ bundleSha256: sha }).where(eq(challenges.id, s.id));
    expect(await problem(await upload(s.id, s.operator, live), 409)).toContain("identical");
  });

  it("passes QA, queues a rescore of each counted submission and leaves the board alone", async () => {
    const res = await upload(s.id, s.operator, await bundleV2());
    expect(res.status).toBe(201);
    const v = await res.json<Version>();
    expect(v.version).toBe(2);
    expect(v.rescores.total).toBe(3);
    // A second candidate while one is open is refused.
    expect(await problem(await upload(s.id, s.operator, await bundleV2(), "again"), 409)).toContain(
      "promote or discard",
    );
    // Hostile: an agent cannot read the versions or the report (it names hidden tests).
    expect((await call(`/v1/challenges/${s.id}/versions/2/diff`, s.agentToken)).status).toBe(403);
    const settled = await untilSettled(s.id, 2, s.operator);
    expect(settled.state).toBe("ready");
    expect(settled.rescores).toMatchObject({ total: 3, scored: 3, failed: 0 });
    // Nothing an agent reads changed: the board, and each stored score.
    const during = await board(s.id);
    expect(during.entries).toEqual(before.entries);
    for (const a of Object.values(s.agents))
      expect((await findScore(db(), a.submissionId))!.finalRounded).toBe(
        oldScores.get(a.submissionId),
      );
  }, 300_000);

  it("reports old and new score, rank and every changed verdict", async () => {
    const res = await call(`/v1/challenges/${s.id}/versions/2/diff`, s.operator);
    expect(res.status).toBe(200);
    report = await res.json<DiffReport>();
    expect(report.state).toBe("ready");
    const of = (which: string) =>
      report.agents.find((a) => a.agentId === s.agents[which]!.agentId)!;
    const partial = of("partial").submissions[0]!;
    expect(partial.changedTests).toContainEqual(
      expect.objectContaining({ id: "array-over-object", before: null, after: "failed" }),
    );
    // A new version is a new bundle, so its generated tests are drawn again (design.md §31): the
    // total can move either way; the added static test's verdict is what must show.
    expect(partial.after!.score).toEqual(expect.any(Number));
    const complete = of("complete").submissions[0]!;
    expect(complete.changedTests).toContainEqual(
      expect.objectContaining({ id: "array-over-object", before: null, after: "passed" }),
    );
    for (const a of report.agents) {
      expect(a.before).not.toBeNull();
      expect(a.after).not.toBeNull();
    }
  });

  it("serves the report as an operator page behind HTTP Basic, to the owner only", async () => {
    const page = (auth: string | null) =>
      exports.default.fetch(
        new Request(`${ORIGIN}/challenges/${s.id}/versions/2`, {
          headers: auth ? { authorization: auth } : {},
        }),
      );
    const basic = (key: string) => `Basic ${btoa(`operator:${key}`)}`;
    const anonymous = await page(null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("Basic");
    expect(await anonymous.text()).not.toContain("array-over-object");
    // Hostile: an agent's key, a bearer header and another operator's key see nothing.
    expect((await page(basic(s.agentToken))).status).toBe(401);
    expect((await page(`Bearer ${s.operator}`)).status).toBe(401);
    const stranger = await mintKey("operator", (await seedChallenge("deep-merge")).operatorId);
    expect((await page(basic(stranger))).status).toBe(404);
    const owner = await page(basic(s.operator));
    expect(owner.status).toBe(200);
    expect(owner.headers.get("cache-control")).toBe("private, no-store");
    const body = await owner.text();
    expect(body).toContain("array-over-object");
    expect(body).toContain("version 2 (ready)");
  });

  it("promotes atomically: new scores, new board, history kept, events sent", async () => {
    const events = vi.spyOn(env.WEBHOOKS, "sendBatch");
    // Hostile: an agent cannot promote.
    expect(
      (await post(`/v1/challenges/${s.id}/versions/2/promote`, s.agentToken, { reason: "x" }))
        .status,
    ).toBe(403);
    await problem(await post(`/v1/challenges/${s.id}/versions/2/promote`, s.operator, {}), 400);
    const res = await post(`/v1/challenges/${s.id}/versions/2/promote`, s.operator, {
      reason: "the array contract was untested",
    });
    expect(res.status).toBe(200);
    expect((await res.json<DiffReport>()).state).toBe("promoted");
    const ch = await db().select().from(challenges).where(eq(challenges.id, s.id)).get();
    expect(ch!.version).toBe(2);
    for (const a of report.agents) {
      const sub = a.submissions[0]!;
      const score = (await findScore(db(), sub.submissionId))!;
      expect(score.finalRounded).toBe(sub.after!.score);
      expect(score.challengeVersion).toBe(2);
      const kept = await db()
        .select()
        .from(supersededScores)
        .where(eq(supersededScores.submissionId, sub.submissionId))
        .all();
      expect(
        kept.map((k) => [
          k.version,
          (JSON.parse(k.score) as { final_rounded: number }).final_rounded,
        ]),
      ).toEqual([[1, sub.before!.score]]);
    }
    // Reads go through a short version cache: the new board shows once it expires, whole.
    let after = await board(s.id);
    for (let i = 0; i < 60 && after.version === before.version; i++) {
      await new Promise((r) => setTimeout(r, 250));
      after = await board(s.id);
    }
    expect(after.entries.map((e) => [e.agentId, e.rank, e.score])).toEqual(
      [...report.agents]
        .sort((a, b) => a.after!.rank - b.after!.rank)
        .map((a) => [a.agentId, a.after!.rank, a.after!.score]),
    );
    const sent = events.mock.calls.flatMap(([msgs]) =>
      (msgs as { body: { type: string; agentId: string } }[]).map((m) => m.body),
    );
    expect(
      sent
        .filter((e) => e.type === "submission.rescored")
        .map((e) => e.agentId)
        .sort(),
    ).toEqual(
      Object.values(s.agents)
        .map((a) => a.agentId)
        .sort(),
    );
    events.mockRestore();
    // A repeat finishes nothing new: no second set of audit events.
    expect(
      (await post(`/v1/challenges/${s.id}/versions/2/promote`, s.operator, { reason: "again" }))
        .status,
    ).toBe(200);
    const trail = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.challengeId, s.id), eq(auditEvents.type, "rescored")))
      .all();
    expect(trail).toHaveLength(3);
    // The page says the challenge is on version 2, once its challenge cache (30 s, refreshed by
    // the board reads above) has expired: wait past the whole TTL, not a guess below it.
    let pageText = "";
    for (let i = 0; i < 140 && !pageText.includes("<dt>Version</dt>"); i++) {
      pageText = await (await call(`/challenges/${s.id}`, null)).text();
      if (!pageText.includes("<dt>Version</dt>")) await new Promise((r) => setTimeout(r, 250));
    }
    expect(pageText).toMatch(/<dt>Version<\/dt>\s*<dd>\s*2:/);
    const history = await (
      await call(`/v1/challenges/${s.id}/history`, null)
    ).json<{
      events: { type: string }[];
    }>();
    expect(history.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["version-uploaded", "promoted", "rebuilt"]),
    );
  });

  it("refuses to write a score computed on the version a promotion replaced", async () => {
    const agentId = await seedAgent(s.challenge);
    const submissionId = await seedSubmission(s.challenge, agentId, "complete");
    // Running, as the consumer leaves it mid-run.
    await db()
      .update(submissions)
      .set({ status: "running" })
      .where(eq(submissions.id, submissionId));
    const live = (await findScore(db(), s.agents.complete!.submissionId))!;
    const write: ScoreWrite = {
      score: { ...live, submissionId, agentId, challengeVersion: 1 },
      components: [],
      judgements: [],
      findings: [],
      testCounts: [],
    };
    expect(await saveScore(db(), write, Date.now())).toBe(false);
    expect(await findScore(db(), submissionId)).toBeNull();
    expect(
      await saveScore(
        db(),
        { ...write, score: { ...write.score, challengeVersion: 2 } },
        Date.now(),
      ),
    ).toBe(true);
  });
});

describe("final choices after a promotion", () => {
  it("refuses a submission whose score is on the version the promotion replaced", async () => {
    const s = await setUp();
    const agent = s.agents.partial!;
    // Its iteration 1 is on the board; a second, older-version score stays off it.
    const stale = await seedSubmission(s.challenge, agent.agentId, "partial", 2);
    const live = (await findScore(db(), agent.submissionId))!;
    await db().update(submissions).set({ status: "scored" }).where(eq(submissions.id, stale));
    await db()
      .insert(scores)
      .values({ ...live, submissionId: stale, iteration: 2, challengeVersion: 1 });
    await db().update(challenges).set({ version: 2 }).where(eq(challenges.id, s.id));
    const res = await call(`/v1/challenges/${s.id}/final-choices`, s.agentToken, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ submissionIds: [stale] }),
    });
    expect(await problem(res, 422)).toContain("scored on challenge version 1");
  }, 240_000);
});

describe("discarding, and yielding to live work", () => {
  it("discards a candidate and keeps the live board; a rescore yields to a queued submission", async () => {
    const s = await setUp();
    const before = await board(s.id);
    // A live submission waits: every rescore yields before claiming anything.
    const agentId = await seedAgent(s.challenge);
    const waiting = await seedSubmission(s.challenge, agentId, "partial");
    const res = await upload(s.id, s.operator, await bundleV2());
    expect(res.status).toBe(201);
    const [row] = await listRescores(db(), s.id, 2);
    const outcome = await processRescore(
      env,
      { v: 1, kind: "rescore", challengeId: s.id, version: 2, submissionId: row!.submissionId },
      Date.now,
    );
    expect(outcome).toMatchObject({ action: "retry" });
    expect(outcome.note).toContain("yields");
    const still = await db()
      .select()
      .from(rescores)
      .where(and(eq(rescores.challengeId, s.id), eq(rescores.submissionId, row!.submissionId)))
      .get();
    expect(still!.state).toBe("queued");
    // Hostile: a version still rescoring cannot be promoted (its board would miss scores).
    expect(
      await problem(
        await post(`/v1/challenges/${s.id}/versions/2/promote`, s.operator, { reason: "early" }),
        409,
      ),
    ).toContain("still rescoring");
    await db().update(submissions).set({ status: "failed" }).where(eq(submissions.id, waiting));
    const done = await post(`/v1/challenges/${s.id}/versions/2/discard`, s.operator, {
      reason: "wrong test",
    });
    expect(done.status).toBe(200);
    expect((await done.json<DiffReport>()).state).toBe("discarded");
    // Discarded: nothing claims its rescores, nothing can promote it, the board is as it was.
    expect(
      await claimRescore(
        db(),
        { challengeId: s.id, version: 2, submissionId: row!.submissionId },
        Date.now(),
        60_000,
        1,
      ),
    ).toBeNull();
    expect(
      await problem(
        await post(`/v1/challenges/${s.id}/versions/2/promote`, s.operator, { reason: "x" }),
        409,
      ),
    ).toContain("discarded");
    expect((await board(s.id)).entries).toEqual(before.entries);
    const ch = await db().select().from(challenges).where(eq(challenges.id, s.id)).get();
    expect(ch!.version).toBe(1);
  }, 300_000);
});
