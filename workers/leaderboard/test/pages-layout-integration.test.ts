/**
 * The challenge page's structure as a browser lays it out (issue #35, "Pages and CLI"), through
 * the Worker: every row of every table has as many cells as its header row (baselines and the
 * private board included), the facts grid holds short values only, score against cost is left
 * out while nothing is priced, and each private-board score links to its breakdown. The browser
 * test (e2e/pages.test.ts) checks the same pages for horizontal overflow at 1280 px.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb, privateBoards } from "@bouts/db";
import type { PrivateBoardEntry } from "@bouts/ranking";
import { T0, result, seedChallenge } from "./helpers.ts";
import { misalignedRows, readAttributes, readFacts, readTables } from "./page-structure.ts";

async function pageText(path: string): Promise<string> {
  const res = await exports.default.fetch(new Request(`https://pages.test${path}`));
  expect(res.status).toBe(200);
  return res.text();
}

/** A board of three agents with a baseline above everyone and one between ranks 2 and 3. */
async function boardWithBaselines(status: "published" | "closed" = "published") {
  const seeded = await seedChallenge({ agents: 3, status });
  const [a, b, c] = seeded.agents.map((x) => x.id) as [string, string, string];
  const board = env.LEADERBOARD.getByName(seeded.challengeId);
  for (const r of [
    result(seeded.challengeId, a, 90, { interval: { low: 85, high: 94 } }),
    result(seeded.challengeId, b, 70),
    result(seeded.challengeId, c, 20),
  ])
    expect((await board.recordResult(r)).ok).toBe(true);
  for (const line of [
    { agentId: "baseline:ref", label: "reference solution", kind: "reference", score: 100 },
    { agentId: "baseline:stub", label: "stub", kind: "stub", score: 40 },
  ] as const)
    expect(
      (
        await board.recordBaseline({
          challengeId: seeded.challengeId,
          submissionId: `${line.agentId}-s1`,
          unrounded: String(line.score),
          scoredAt: T0,
          ...line,
        })
      ).ok,
    ).toBe(true);
  return { ...seeded, ids: [a, b, c] as const };
}

describe("the challenge page's tables", () => {
  it("gives every board row as many cells as the header, baseline rows included", async () => {
    const { challengeId } = await boardWithBaselines();
    const tables = await readTables(await pageText(`/challenges/${challengeId}`));
    const board = tables.find((t) => /\bboard\b/.test(t.className))!;
    expect(board.rows[0]!.width).toBe(9);
    expect(board.rows.filter((r) => r.className === "baseline")).toHaveLength(2);
    expect(board.rows).toHaveLength(1 + 3 + 2);
    for (const table of tables) expect(misalignedRows(table)).toEqual([]);
  });

  it("draws the private board aligned, in its own scroll region, each score linked to its breakdown", async () => {
    const { challengeId, ids } = await boardWithBaselines("closed");
    const entries: PrivateBoardEntry[] = ids.map((agentId, i) => ({
      rank: i + 1,
      agentId,
      submissionId: `${agentId}-full-s${i + 1}`,
      chosen: i === 0,
      score: 80 - i * 10,
      unrounded: `${80 - i * 10}.5`,
      iterations: 1,
      timeToFinalMs: 60_000,
      submittedAt: T0 + 60_000,
      interval: null,
      rankRange: { best: i + 1, worst: i + 1 },
      tied: false,
      publicRank: 3 - i,
      publicScore: 70 + i,
      rankChange: 3 - i - (i + 1),
    }));
    await createDb(env.DB)
      .insert(privateBoards)
      .values({ challengeId, publishedAt: T0 + 3_600_000, entries: JSON.stringify(entries) });
    const body = await pageText(`/challenges/${challengeId}`);
    expect(body).toContain("Private board");
    expect(await readAttributes(body, "section.private-board td.score a", "href")).toEqual(
      entries.map((e) => `/submissions/${encodeURIComponent(e.submissionId)}`),
    );
    // Wide tables scroll inside their own labelled region, never the page.
    expect(await readAttributes(body, "section.private-board div.table-scroll", "role")).toEqual([
      "region",
    ]);
    const tables = await readTables(body);
    expect(tables).toHaveLength(2);
    for (const table of tables) expect(misalignedRows(table)).toEqual([]);
  });
});

describe("the challenge page's facts", () => {
  it("keeps each grid cell to a short value and states the ranking rule below the grid", async () => {
    const { challengeId } = await boardWithBaselines();
    const body = await pageText(`/challenges/${challengeId}`);
    const facts = await readFacts(body);
    expect(facts.map((f) => f.term)).toEqual([
      "Status",
      "Scoring",
      "Ranks by",
      "Iterations",
      "Published",
    ]);
    expect(facts.find((f) => f.term === "Ranks by")!.value).toBe("each agent's latest score");
    // A cell of the grid is one or two short lines; prose takes a row of its own.
    for (const f of facts.filter((x) => !x.wide)) expect(f.value.length).toBeLessThanOrEqual(40);
    expect(body.replace(/\s+/g, " ")).toMatch(
      /<\/dl> <p class="note ranking-rule"> Ties go to fewer iterations/,
    );
  });
});

describe("score against cost", () => {
  it("is left out while nothing on the board is priced", async () => {
    const { challengeId } = await boardWithBaselines();
    const body = await pageText(`/challenges/${challengeId}`);
    expect(body).toContain('id="board-heading"');
    expect(body).not.toContain("Score against cost");
    expect(body).not.toContain('id="cost"');
  });
});
