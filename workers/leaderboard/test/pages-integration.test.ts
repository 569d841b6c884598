/**
 * The public HTML pages (docs/pages.md) through the Worker: structure, escaping of untrusted
 * text (agent names, titles), the Content-Security-Policy, ETag/304, pagination, the HTML
 * error pages, and that no hidden test content or private breakdown detail is rendered.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb, agents } from "@bouts/db";
import { SEED_AGENT_EXAMPLE, SEED_ENGINEERING_EXAMPLE, computeScore } from "@bouts/scoring";
import { eq } from "drizzle-orm";
import { PAGE_CSP, isPageRequest } from "../src/index.ts";
import { T0, result, seedChallenge, seedSubmission } from "./helpers.ts";

const ORIGIN = "https://pages.test";
const HOSTILE = `<script>alert("x")</script>"><img src=x onerror=alert(1)>`;

function get(path: string, headers: Record<string, string> = {}) {
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { headers }));
}

/** Markup with whitespace collapsed and none beside tags: templates are formatted freely. */
function normalize(markup: string): string {
  return markup
    .replace(/\s+/g, " ")
    .replace(/\s*>\s*/g, ">")
    .replace(/\s+</g, "<");
}

async function page(path: string) {
  const res = await get(path);
  const body = normalize(await res.text());
  return { res, body };
}

function expectPageHeaders(res: Response) {
  expect(res.headers.get("Content-Type")).toMatch(/^text\/html; ?charset=UTF-8$/i);
  expect(res.headers.get("Content-Security-Policy")).toBe(PAGE_CSP);
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
}

/** The start tags of `body` of the given name, e.g. every `<script …>`. */
function tags(body: string, name: string): string[] {
  return body.match(new RegExp(`<${name}\\b[^>]*>`, "gi")) ?? [];
}

async function renameAgent(id: string, name: string) {
  await createDb(env.DB).update(agents).set({ name }).where(eq(agents.id, id));
}

async function storeScore(
  input: typeof SEED_ENGINEERING_EXAMPLE | typeof SEED_AGENT_EXAMPLE,
  sub: { id: string; challengeId: string; agentId: string; iteration: number },
) {
  const scored = computeScore(input);
  if (!scored.ok) throw new Error("example does not score");
  const b = scored.value;
  await env.DB.prepare(
    `INSERT INTO scores (submission_id, challenge_id, agent_id, iteration, profile, profile_version,
       family, final_unrounded, final_fraction, final_rounded, band, breakdown, input, human_review,
       judge_mode, report_key, submitted_at, entered_at, scored_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', 0, 'offline', 'reports/x', ?, ?, ?)`,
  )
    .bind(
      sub.id,
      sub.challengeId,
      sub.agentId,
      sub.iteration,
      b.profile,
      b.profileVersion,
      b.family,
      b.final.unrounded.text,
      b.final.unrounded.fraction,
      b.final.rounded,
      b.band.key,
      JSON.stringify(b),
      T0 + sub.iteration * 60_000,
      T0,
      T0 + sub.iteration * 60_000 + 1000,
    )
    .run();
  return b;
}

describe("isPageRequest", () => {
  const at = (method: string, path: string) => new Request(`${ORIGIN}${path}`, { method });
  it("takes GET and HEAD of the page paths only", () => {
    expect(isPageRequest(at("GET", "/"))).toBe(true);
    expect(isPageRequest(at("HEAD", "/challenges/deep-merge"))).toBe(true);
    expect(isPageRequest(at("GET", "/submissions/abc"))).toBe(true);
    expect(isPageRequest(at("POST", "/"))).toBe(false);
    expect(isPageRequest(at("GET", "/v1/challenges"))).toBe(false);
    expect(isPageRequest(at("GET", "/challenges"))).toBe(false);
    expect(isPageRequest(at("GET", "/challenges/a/b"))).toBe(false);
    expect(isPageRequest(at("GET", "/docs"))).toBe(false);
    expect(isPageRequest(at("GET", "/static/pages.css"))).toBe(false);
  });
});

describe("the index page", () => {
  it("lists published and closed challenges with links, never drafts", async () => {
    const open = await seedChallenge({ slug: `open-${crypto.randomUUID().slice(0, 6)}` });
    const draft = await seedChallenge({
      status: "draft",
      slug: `draft-${crypto.randomUUID().slice(0, 6)}`,
    });
    const { res, body } = await page("/");
    expect(res.status).toBe(200);
    expectPageHeaders(res);
    expect(res.headers.get("ETag")).toMatch(/^W\/"[0-9a-f]+"$/);
    expect(body).toMatch(/^<!doctype html><html lang="en">/);
    expect(body).toContain('<meta name="viewport"');
    expect(body).toContain('<main id="main"');
    expect(body).toContain('<a class="skip-link" href="#main">');
    const openRow = await env.DB.prepare("SELECT slug FROM challenges WHERE id = ?")
      .bind(open.challengeId)
      .first<{ slug: string }>();
    expect(body).toContain(`href="/challenges/${openRow!.slug}"`);
    const draftRow = await env.DB.prepare("SELECT slug FROM challenges WHERE id = ?")
      .bind(draft.challengeId)
      .first<{ slug: string }>();
    expect(body).not.toContain(draftRow!.slug);
  });

  it("answers HEAD like GET, without a body", async () => {
    const res = await exports.default.fetch(new Request(`${ORIGIN}/`, { method: "HEAD" }));
    expect(res.status).toBe(200);
    expectPageHeaders(res);
    expect(await res.text()).toBe("");
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const first = await get("/");
    await first.text();
    const etag = first.headers.get("ETag")!;
    const again = await get("/", { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("ETag")).toBe(etag);
  });
});

describe("the challenge page", () => {
  it("shows each row's rank range and marks statistically tied entries", async () => {
    const { challengeId, agents: seeded } = await seedChallenge({ agents: 3 });
    type Seeded = { id: string; token: string };
    const [a, b, c] = seeded as [Seeded, Seeded, Seeded];
    const board = env.LEADERBOARD.getByName(challengeId);
    await board.recordResult(result(challengeId, a.id, 85, { interval: { low: 80.5, high: 89 } }));
    await board.recordResult(result(challengeId, b.id, 84, { interval: { low: 79, high: 88.25 } }));
    await board.recordResult(result(challengeId, c.id, 40, { interval: { low: 33, high: 47 } }));
    const { body } = await page(`/challenges/${challengeId}`);
    const rows = body.match(/<tr data-agent-id="[^"]+">[\s\S]*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/class="num rank">1</);
    expect(rows[0]).toMatch(
      /class="num rank-range tied"[^>]*>\s*1–2\s*<span class="tie-mark">tied<\/span>/,
    );
    expect(rows[0]).toContain('title="95 % interval of the score: 80.5–89"');
    expect(rows[0]).toContain("statistically tied, could rank 1 to 2");
    expect(rows[1]).toMatch(/class="num rank-range tied"[^>]*>\s*1–2\s*</);
    expect(rows[2]).toMatch(
      /class="num rank-range"[^>]*>\s*3\s*<span class="interval">33–47<\/span>/,
    );
    expect(rows[2]).not.toContain("tie-mark");
    expect(body).toContain(">Rank range</th>");
  });

  it("renders the leaderboard rows with every column, escaping agent names", async () => {
    const { challengeId, agents: seeded } = await seedChallenge({ agents: 3 });
    type Seeded = { id: string; token: string };
    const [a, b, c] = seeded as [Seeded, Seeded, Seeded];
    await renameAgent(a.id, HOSTILE);
    const board = env.LEADERBOARD.getByName(challengeId);
    await board.recordResult(result(challengeId, a.id, 40, { iteration: 1 }));
    await board.recordResult(result(challengeId, a.id, 85, { iteration: 2 }));
    await board.recordResult(result(challengeId, b.id, 70));
    await board.recordResult(result(challengeId, c.id, 10));

    const { res, body } = await page(`/challenges/${challengeId}`);
    expect(res.status).toBe(200);
    expectPageHeaders(res);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=5, stale-while-revalidate=30");
    // Escaped everywhere it appears, never a live tag or attribute.
    expect(body).not.toContain("<script>alert");
    expect(body).not.toContain("<img src=x");
    expect(body).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&quot;&gt;&lt;img");
    expect(tags(body, "script")).toEqual(['<script type="module" src="/static/live.js">']);
    expect(tags(body, "img")).toEqual([]);
    for (const tag of body.match(/<[a-z][^>]*>/gi) ?? []) {
      expect(tag).not.toMatch(/\s(?:on[a-z]+|style)=/i);
    }

    // Rows in rank order, each with score, band, iterations, time and a trajectory chart.
    const rows = body.match(/<tr data-agent-id="[^"]+">[\s\S]*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain(`data-agent-id="${a.id}"`);
    expect(rows[0]).toMatch(/class="num rank">1</);
    expect(rows[0]).toContain(">85<");
    expect(rows[0]).toContain('class="band band-strong"');
    expect(rows[0]).toMatch(/<td class="num">2<\/td>/); // iterations
    expect(rows[0]).toContain(
      `<time datetime="PT2M" title="2 minutes from the challenge's opening">2:00</time>`,
    );
    expect(rows[0]).toContain('<svg class="spark"');
    expect(rows[0]).toContain(
      "Improving trajectory. Scores by iteration: iteration 1: 40, iteration 2: 85.",
    );
    expect(rows[0]).toContain(`href="/submissions/${a.id}-s2"`);
    expect(rows[1]).toContain("agent-1");
    expect(rows[1]).toContain("One-shot");
    expect(rows[2]).toContain('class="band band-failed"');
    expect(body).toContain("Showing ranks 1–3 of 3 agents.");
    expect(body).toContain(`data-ws="/v1/challenges/${challengeId}/leaderboard/ws"`);
    expect(body).toMatch(/data-version="4"/);
    expect(body).toContain('<caption id="board-caption">');
    expect(body).toContain('<th scope="col" class="num">Rank</th>');
  });

  it("is found by slug too, and never shows the bundle's tests or the QA report", async () => {
    const slug = `slug-${crypto.randomUUID().slice(0, 6)}`;
    await seedChallenge({ slug });
    const { res, body } = await page(`/challenges/${slug}`);
    expect(res.status).toBe(200);
    expect(body).toContain("<h1>Deep merge</h1>");
    expect(body).toContain("The leaderboard is empty");
    expect(body).not.toContain("hidden-test-name");
    expect(body).not.toContain("secretTests");
    expect(body).not.toContain("bundles/abc");
  });

  it("pages with keyset cursors: a next link, a first-page link, and a refused bad cursor", async () => {
    const { challengeId, agents: seeded } = await seedChallenge({ agents: 3 });
    const board = env.LEADERBOARD.getByName(challengeId);
    for (const [i, ag] of seeded.entries()) {
      await board.recordResult(result(challengeId, ag.id, 90 - i * 10));
    }
    const first = await page(`/challenges/${challengeId}?limit=2`);
    expect(first.body).toContain("Showing ranks 1–2 of 3 agents.");
    const next = /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(first.body);
    expect(next).not.toBeNull();
    const href = next![1]!.replaceAll("&amp;", "&");
    expect(href).toMatch(/^\/challenges\/[^?]+\?limit=2&cursor=/);
    const second = await page(href);
    expect(second.res.status).toBe(200);
    expect(second.body).toContain("Showing ranks 3–3 of 3 agents.");
    expect(second.body).toContain(">First page</a>");
    expect(second.body).not.toContain("Next page");

    const bad = await page(`/challenges/${challengeId}?cursor=not-a-cursor`);
    expect(bad.res.status).toBe(400);
    expectPageHeaders(bad.res);
    expect(bad.body).toContain("<h1>That link is not valid</h1>");
    const badLimit = await page(`/challenges/${challengeId}?limit=lots`);
    expect(badLimit.res.status).toBe(400);
  });

  it("is an HTML 404 for a draft or an unknown challenge", async () => {
    const { challengeId } = await seedChallenge({ status: "draft" });
    for (const path of [`/challenges/${challengeId}`, "/challenges/no-such-thing"]) {
      const { res, body } = await page(path);
      expect(res.status).toBe(404);
      expectPageHeaders(res);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      expect(body).toContain("<h1>Not found</h1>");
    }
  });

  it("answers 304 while the board has not changed, and 200 once it has", async () => {
    const { challengeId, agents: seeded } = await seedChallenge({ agents: 2 });
    const board = env.LEADERBOARD.getByName(challengeId);
    await board.recordResult(result(challengeId, seeded[0]!.id, 50));
    const first = await get(`/challenges/${challengeId}`);
    await first.text();
    const etag = first.headers.get("ETag")!;
    const same = await get(`/challenges/${challengeId}`, { "If-None-Match": etag });
    expect(same.status).toBe(304);
    await board.recordResult(result(challengeId, seeded[1]!.id, 60));
    // The colo caches the board version for 2 s; wait it out.
    await new Promise((r) => setTimeout(r, 2100));
    const changed = await get(`/challenges/${challengeId}`, { "If-None-Match": etag });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toContain("of 2 agents");
  });
});

describe("the submission page", () => {
  it("draws the engineering breakdown: components, weights, contributions, judges, final", async () => {
    const { challengeId, agents: seeded } = await seedChallenge({ agents: 1 });
    const agent = seeded[0]!;
    await renameAgent(agent.id, HOSTILE);
    const id = await seedSubmission(challengeId, agent.id, 1);
    const b = await storeScore(SEED_ENGINEERING_EXAMPLE, {
      id,
      challengeId,
      agentId: agent.id,
      iteration: 1,
    });
    const { res, body } = await page(`/submissions/${id}`);
    expect(res.status).toBe(200);
    expectPageHeaders(res);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=60");
    expect(tags(body, "script")).toEqual([]);
    expect(body).not.toContain("<script>alert");
    expect(body).toContain("Score of &lt;script&gt;");

    // Every component with its score, weight and contribution, and the charts' text.
    for (const c of b.components) {
      expect(body).toContain(c.label);
      expect(body).toContain(`× ${c.weight}%`);
      expect(body).toContain(`= ${c.contribution.text}`);
    }
    expect(body).toContain('<svg class="composition"');
    expect(body).toContain("Weighted sum 82.075 of 100.");
    expect(body).toContain('= 82.075<span class="fraction">(= 3283/40)</span>');
    // Judges and the rule that applied.
    expect(body).toContain("Median: the judges agreed within 15 points");
    expect(body).toContain("spread 8 ≤ 15 → median(68, 72, 76) = 72");
    expect(body).toMatch(/<th scope="row">judge-b<\/th>/);
    // Final unrounded and rounded, band, and the engine's math lines.
    expect(body).toContain('<span class="rounded">82</span>');
    expect(body).toContain("rounded half-up to 82");
    expect(body).toContain("final 82.075 → rounded half-up → 82 (Strong)");
    expect(body).toContain("No adjustments: the final score is the weighted sum.");
    // Private details and hidden content stay out.
    expect(body).not.toContain("src/session.ts");
    expect(body).not.toContain("insecure-random-token");
    expect(body).not.toContain("hidden-test-name");
    expect(body).toContain("CWE-338");
  });

  it("draws the agent-run breakdown with evidence (citations withheld) and the nested objective", async () => {
    const { challengeId, agents: seeded } = await seedChallenge({ agents: 1 });
    const agent = seeded[0]!;
    const id = await seedSubmission(challengeId, agent.id, 1);
    await storeScore(SEED_AGENT_EXAMPLE, { id, challengeId, agentId: agent.id, iteration: 1 });
    const { res, body } = await page(`/submissions/${id}`);
    expect(res.status).toBe(200);
    expect(body).toContain("Agent-run composite v1");
    expect(body).toContain("Outlier set aside");
    expect(body).toMatch(/<tr class="discarded"><th scope="row">judge-c<\/th>/);
    expect(body).toContain("<strong>Calibration</strong>");
    expect(body).toContain("known-failure-disclosed");
    expect(body).toContain("(visible to the submitting agent)");
    expect(body).not.toContain("NOTES.md");
    expect(body).not.toContain("auth-bypass-token");
    expect(body).toContain('id="objective-heading"');
    expect(body).toContain("76.75875");
  });

  it("is an HTML 404 for an unknown submission", async () => {
    const { res, body } = await page("/submissions/nope");
    expect(res.status).toBe(404);
    expectPageHeaders(res);
    expect(body).toContain("<h1>Not found</h1>");
  });
});
