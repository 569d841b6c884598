/**
 * A split challenge through the submissions queue (docs/design.md §29): notes-api with five of
 * its hidden tests declared private, scored by the real runner. Hostile: the stored score, its
 * test counts, the stored run report and the breakdown the owner agent reads through the HTTP
 * API carry no private test id, name, count or duration; the full suite is stored apart.
 */
import { env, exports } from "cloudflare:workers";
import { createMessageBatch, createExecutionContext, getQueueResult } from "cloudflare:test";
import { BreakdownSchema } from "@bouts/contracts";
import {
  challenges,
  findScore,
  fullScores,
  insertApiKey,
  listChallengeHistory,
  recordSplit,
  testCounts,
} from "@bouts/db";
import { mintApiKey } from "@bouts/db/keys";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { consumeSubmissions } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const PRIVATE = ["get-note", "unknown-note", "read-after-write", "short-password", "idor"];
const PRIVATE_NAMES = [
  "fetches a note by id",
  "answers 404 for an unknown note",
  "lists notes in creation order across requests",
  "rejects a short password",
  "cannot read another user's note",
];

/** Every private marker found in a JSON text. */
const leaks = (text: string) =>
  [...PRIVATE, ...PRIVATE_NAMES.map((n) => JSON.stringify(n).slice(1, -1))].filter((m) =>
    text.includes(m),
  );

/** A scored split challenge: two agents, one submission each, both through the queue. */
async function setUpSplitChallenge() {
  const challenge = await seedChallenge("notes-api");
  const row = await db()
    .select()
    .from(challenges)
    .where(eq(challenges.id, challenge.challengeId))
    .get();
  const manifest = JSON.parse(row!.bundleManifest!) as Record<string, unknown>;
  await db()
    .update(challenges)
    .set({ bundleManifest: JSON.stringify({ ...manifest, split: { private: PRIVATE } }) })
    .where(eq(challenges.id, challenge.challengeId));
  const agent = await seedAgent(challenge);
  const submission = await seedSubmission(challenge, agent, "partial");
  const other = await seedAgent(challenge);
  const otherSubmission = await seedSubmission(challenge, other, "complete");
  await recordSplit(db(), {
    challengeId: challenge.challengeId,
    method: "declared",
    seed: null,
    privatePercent: null,
    privateIds: JSON.stringify([...PRIVATE].sort()),
    finalChoices: 2,
    bundleSha256: "0".repeat(64),
    recordedAt: Date.now(),
  });
  const key = await mintApiKey();
  await insertApiKey(db(), {
    id: key.id,
    role: "agent",
    agentId: agent,
    operatorId: null,
    secretHash: key.secretHash,
    label: "split",
    createdAt: Date.now(),
    revokedAt: null,
  });
  const token = key.token;
  const opKey = await mintApiKey();
  await insertApiKey(db(), {
    id: opKey.id,
    role: "operator",
    agentId: null,
    operatorId: challenge.operatorId,
    secretHash: opKey.secretHash,
    label: "split-op",
    createdAt: Date.now(),
    revokedAt: null,
  });
  const operatorToken = opKey.token;
  const batch = createMessageBatch("bouts-submissions", [
    { id: "m1", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: submission } },
    { id: "m2", timestamp: new Date(), attempts: 1, body: { v: 1, submissionId: otherSubmission } },
  ]);
  const events = vi.spyOn(env.WEBHOOKS, "sendBatch");
  const ctx = createExecutionContext();
  await consumeSubmissions(batch, env);
  // Hostile: the webhook events an agent receives carry nothing of the private part.
  expect(events).toHaveBeenCalled();
  expect(leaks(JSON.stringify(events.mock.calls))).toEqual([]);
  events.mockRestore();
  const result = await getQueueResult(batch, ctx);
  expect([...result.explicitAcks].sort()).toEqual(["m1", "m2"]);
  return { challenge, agent, submission, token, other, otherSubmission, operatorToken };
}

type SplitSetup = Awaited<ReturnType<typeof setUpSplitChallenge>>;

describe("a challenge with a declared private part", () => {
  let submission: string;
  let token: string;
  beforeAll(async () => {
    ({ submission, token } = await setUpSplitChallenge());
  }, 180_000);

  it("ranks and stores the public part only", async () => {
    const score = await findScore(db(), submission);
    const breakdown = BreakdownSchema.parse(JSON.parse(score!.breakdown));
    const staticC = breakdown.components.find((c) => c.key === "static")!;
    expect(JSON.stringify(staticC)).toContain('"total":6');
    const counts = await db()
      .select()
      .from(testCounts)
      .where(eq(testCounts.submissionId, submission))
      .all();
    const total = (suite: string) =>
      counts.filter((c) => c.suite === suite).reduce((n, c) => n + c.total, 0);
    expect(total("static")).toBe(6);
    expect(
      counts.filter((c) => c.bucket.startsWith("prebuilt")).reduce((n, c) => n + c.total, 0),
    ).toBe(5);
    expect(leaks(score!.breakdown)).toEqual([]);
    expect(leaks(score!.input)).toEqual([]);
  });

  it("keeps private results out of the stored run report", async () => {
    const report = await (await env.ARTIFACTS.get(`reports/${submission}.json`))!.text();
    expect(leaks(report)).toEqual([]);
    const full = await (await env.ARTIFACTS.get(`reports-full/${submission}.json`))!.text();
    expect(leaks(full)).toEqual(expect.arrayContaining(PRIVATE));
  });

  it("stores the full suite apart, scored on all ten static tests", async () => {
    const row = await db()
      .select()
      .from(fullScores)
      .where(eq(fullScores.submissionId, submission))
      .get();
    expect(row).toBeDefined();
    expect(
      JSON.stringify(BreakdownSchema.parse(JSON.parse(row!.breakdown)).components[0]),
    ).toContain('"total":10');
  });

  it("shows the owner agent a breakdown with no private id, name or count", async () => {
    const views: Record<string, string>[] = [{ authorization: `Bearer ${token}` }, {}];
    for (const auth of views) {
      const res = await exports.default.fetch(
        new Request(`http://bouts.test/v1/submissions/${submission}/breakdown`, { headers: auth }),
      );
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(leaks(text)).toEqual([]);
      // The static component counts the six public tests, never the full suite's ten (the
      // adversarial severities may hold a 10 of their own, generated tests included).
      const body = JSON.parse(text) as {
        breakdown: { components: { key: string; details: { total?: number } }[] };
      };
      expect(body.breakdown.components.find((c) => c.key === "static")!.details.total).toBe(6);
    }
  });
});

const send = (path: string, token: string, method = "GET", body?: unknown) =>
  exports.default.fetch(
    new Request(`http://bouts.test${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );

/** Polls until `probe` answers (the page reads the challenge through a short cache). */
async function until<T>(probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function problem(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  return (await res.json<{ detail: string }>()).detail;
}

describe("final choices and the close of a split challenge", () => {
  let s: SplitSetup;
  beforeAll(async () => {
    s = await setUpSplitChallenge();
  }, 180_000);

  it("validates choices, closes once, publishes the private board and refuses late choices", async () => {
    const id = s.challenge.challengeId;
    const choices = `/v1/challenges/${id}/final-choices`;
    // Before close there is no private board, and the refusal names nothing private.
    const early = await problem(
      await exports.default.fetch(
        new Request(`http://bouts.test/v1/challenges/${id}/private-leaderboard`),
      ),
      409,
    );
    expect(leaks(early)).toEqual([]);
    // Another agent's submission and a missing one are 404, as every id the caller does not own;
    // duplicates break the document's `uniqueItems` (400); too many are unprocessable (422).
    expect(
      await problem(
        await send(choices, s.token, "PUT", { submissionIds: [s.otherSubmission] }),
        404,
      ),
    ).toMatch(/submission/i);
    expect(
      await problem(await send(choices, s.token, "PUT", { submissionIds: ["nope"] }), 404),
    ).toMatch(/submission/i);
    expect(
      await problem(
        await send(choices, s.token, "PUT", { submissionIds: [s.submission, s.submission] }),
        400,
      ),
    ).toMatch(/twice/);
    expect(
      await problem(
        await send(choices, s.token, "PUT", { submissionIds: [s.submission, "a", "b"] }),
        422,
      ),
    ).toMatch(/at most 2/);
    const chosen = await send(choices, s.token, "PUT", { submissionIds: [s.submission] });
    expect(chosen.status).toBe(200);
    expect(await chosen.json()).toMatchObject({
      submissionIds: [s.submission],
      limit: 2,
      fallback: "latest",
    });
    expect(await (await send(choices, s.token)).json()).toMatchObject({
      submissionIds: [s.submission],
    });

    // While open, the full-suite breakdown is refused, saying nothing of the private part.
    const fullPath = `/v1/submissions/${s.submission}/full-breakdown`;
    const earlyFull = await problem(await send(fullPath, s.token), 409);
    expect(leaks(earlyFull)).toEqual([]);

    const page = (path: string) =>
      exports.default.fetch(new Request(`http://bouts.test${path}`)).then((r) => r.text());
    const openPage = await page(`/challenges/${id}`);
    expect(openPage).not.toContain("Private board");
    expect(leaks(openPage)).toEqual([]);
    // Close is idempotent: the second answers the same closed challenge.
    const first = await send(`/v1/challenges/${id}/close`, s.operatorToken, "POST");
    expect(first.status).toBe(200);
    const again = await send(`/v1/challenges/${id}/close`, s.operatorToken, "POST");
    expect(again.status).toBe(200);
    expect((await again.json<{ status: string }>()).status).toBe("closed");

    const res = await exports.default.fetch(
      new Request(`http://bouts.test/v1/challenges/${id}/private-leaderboard`),
    );
    expect(res.status).toBe(200);
    const board = await res.json<{
      split: { method: string; privateTests: string[] };
      entries: {
        agentId: string;
        chosen: boolean;
        rank: number;
        publicRank: number;
        rankChange: number;
        score: number;
      }[];
    }>();
    expect(board.split).toMatchObject({ method: "declared", privateTests: [...PRIVATE].sort() });
    expect(board.entries).toHaveLength(2);
    for (const e of board.entries) expect(e.rankChange).toBe(e.publicRank - e.rank);
    expect(board.entries.find((e) => e.agentId === s.agent)).toMatchObject({ chosen: true });
    expect(board.entries.find((e) => e.agentId === s.other)).toMatchObject({ chosen: false });
    // Its scores are the full suite's.
    const full = await db()
      .select()
      .from(fullScores)
      .where(eq(fullScores.submissionId, s.submission))
      .get();
    expect(board.entries.find((e) => e.agentId === s.agent)!.score).toBe(full!.finalRounded);
    // After close, the full-suite breakdown is published: all ten static tests, the same score.
    const fullView = await exports.default.fetch(new Request(`http://bouts.test${fullPath}`));
    expect(fullView.status).toBe(200);
    const fullBody = await fullView.json<{ view: string; final: { rounded: number } }>();
    expect(fullBody).toMatchObject({ view: "public", final: { rounded: full!.finalRounded } });
    expect(
      (
        fullBody as unknown as {
          breakdown: { components: { key: string; details: { total?: number } }[] };
        }
      ).breakdown.components.find((c) => c.key === "static")!.details.total,
    ).toBe(10);

    // The page shows the private board beside the public one, with each agent's rank change.
    const closedPage = await until(async () => {
      const text = await page(`/challenges/${id}`);
      return text.includes("Private board") ? text : null;
    });
    expect(closedPage).toContain('id="board-heading"');
    expect(closedPage).toMatch(/class="shake"/);
    expect(await problem(await send(choices, s.token, "PUT", { submissionIds: [] }), 409)).toMatch(
      /closed/,
    );
    const types = (await listChallengeHistory(db(), id)).map((e) => e.type);
    expect(types.filter((t) => t === "closed")).toHaveLength(1);
    expect(types.filter((t) => t === "private-board-published")).toHaveLength(1);
  });
});
