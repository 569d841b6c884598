/**
 * The bouts command against the real platform Worker (test/platform.ts): the leaderboard with
 * rank ranges, ties, intervals and baselines, final choices, webhooks, submissions and the
 * audit history, each through `main()` over HTTP with the key from the environment, as an
 * agent runs it. The board and the trail are seeded in D1 (only the scoring pipeline writes
 * them) and the board rebuilt through the operator route; everything else goes through the API.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/index.ts";
import {
  seedAgent,
  seedChallenge,
  seedOperator,
  seedSubmission,
  seedSubmissionEvent,
  startPlatform,
  type LocalPlatform,
} from "./platform.ts";

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const MIN = 60_000;
const SLUG = "cli-board";
/** A baseline named to clear the screen and forge a second line. */
const HOSTILE_NAME = "Reference\x1b[2J\nsolution\x1b]0;pwned\x07";

let platform: LocalPlatform;
let me: { id: string; key: string };
let other: { id: string; key: string };
let challengeId: string;
let mine: { first: string; second: string; failed: string };
let theirs: string;
const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString()));
  req.on("end", () => {
    deliveries.push({ headers: req.headers, body });
    res.end("ok");
  });
});

/** The control characters of `text` other than its line breaks. */
const controlsIn = (text: string) =>
  [...text].filter((c) => {
    const n = c.codePointAt(0)!;
    return (n < 0x20 && c !== "\n") || (n >= 0x7f && n <= 0x9f);
  });

/** Runs `bouts …` as the agent `key` (null: no key); resolves to the code and the output. */
async function bouts(argv: string[], key: string | null = me.key) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: {
      BOUTS_API_URL: platform.url,
      BOUTS_CONFIG: "/nonexistent/bouts-config.json",
      ...(key ? { BOUTS_API_KEY: key } : {}),
    },
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as AddressInfo).port;
  // Loopback receivers are a local-development switch, on allowed ports (docs/webhooks.md).
  platform = await startPlatform({
    WEBHOOKS_ALLOW_LOOPBACK: "true",
    WEBHOOKS_LOOPBACK_PORTS: `${port}-${port}`,
  });
  const db = platform.db;
  const operator = await seedOperator(db, T0);
  challengeId = await seedChallenge(db, { operatorId: operator.id, slug: SLUG, now: T0 });
  const agent = (name: string) => seedAgent(db, { operatorId: operator.id, name, now: T0 });
  me = (await agent("me")) as { id: string; key: string };
  other = (await agent("other")) as { id: string; key: string };
  // An agent name written to recolour the terminal and forge a line.
  const third = await agent("Third\x1b[31m\nbot");
  const baseline = await seedAgent(db, {
    operatorId: operator.id,
    name: HOSTILE_NAME,
    now: T0,
    baseline: { kind: "reference", of: challengeId },
  });
  const sub = (agentId: string, iteration: number, extra: object) =>
    seedSubmission(db, { challengeId, agentId, iteration, at: T0 + iteration * MIN, ...extra });
  // me and other overlap (tied for 1–2), third is clear of both; the baseline sits after #2.
  mine = {
    first: await sub(me.id, 1, { score: { rounded: 80, low: 77, high: 83 } }),
    second: await sub(me.id, 2, { score: { rounded: 91, low: 88, high: 94 } }),
    failed: await sub(me.id, 3, {
      failure: { code: "archive-refused", reason: "entry ../x\x1b[31m escapes\nthe root" },
    }),
  };
  theirs = await sub(other.id, 1, { score: { rounded: 90, low: 87, high: 93 } });
  await sub(third.id, 1, { score: { rounded: 70, low: 68, high: 72 } });
  await sub(baseline.id, 1, { score: { rounded: 85, low: 85, high: 85 } });
  const event = (type: "scored" | "rescored", cause: string, before: object, after: object) =>
    seedSubmissionEvent(db, {
      challengeId,
      submissionId: mine.first,
      agentId: me.id,
      type,
      actor: type === "scored" ? { kind: "system", id: "score" } : { kind: "operator", id: "op" },
      cause,
      before,
      after,
      at: T0 + 5 * MIN,
    });
  await event(
    "scored",
    "the score pipeline scored iteration 1",
    { status: "running" },
    {
      status: "scored",
      score: 80,
    },
  );
  await event("rescored", "judge fix\x1b[2J\nreapplied", { score: 80 }, { score: 82 });
  // The board reads D1 through the operator's audited rebuild, as after any repair.
  const rebuilt = await fetch(`${platform.url}/v1/challenges/${SLUG}/leaderboard/rebuild`, {
    method: "POST",
    headers: { Authorization: `Bearer ${operator.key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ reason: "seeded for the CLI tests" }),
  });
  expect(rebuilt.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await platform?.close();
  receiver.close();
});

describe("bouts leaderboard", () => {
  it("shows each entry's rank range, tie, score interval and the baselines", async () => {
    const { code, out } = await bouts(["leaderboard", SLUG]);
    expect(code).toBe(0);
    const lines = out.split("\n");
    const row = (rank: number) => lines.find((l) => l.trimStart().startsWith(`#${rank} `)) ?? "";
    expect(out).toContain("3 ranked");
    expect(row(1)).toMatch(/#1\s+1–2\s+tied\s+91\s+88\.0–94\.0\s+elite/);
    // Agents by the name their operator gave, with the start of the id beside it.
    expect(row(1)).toContain(`me (${me.id.slice(0, 8)})`);
    expect(row(2)).toMatch(/#2\s+1–2\s+tied\s+90\s+87\.0–93\.0/);
    expect(row(2)).toContain(`other (${other.id.slice(0, 8)})`);
    expect(row(3)).toMatch(/#3\s+3\s+70\s+68\.0–72\.0\s+competent/);
    expect(row(3)).not.toContain("tied");
    expect(row(3)).toContain("Third bot (");
    // The baseline is marked, not ranked, and sits between #2 and #3 (afterRank 2).
    const baseline = lines.findIndex((l) => l.includes("baseline (reference, not ranked): 85"));
    expect(baseline).toBe(lines.indexOf(row(2)) + 1);
    expect(lines[baseline + 1]).toBe(row(3));
  });

  it("prints a hostile baseline name as one inert line", async () => {
    const { out } = await bouts(["leaderboard", SLUG]);
    expect(controlsIn(out)).toEqual([]);
    expect(out).toContain("Reference solution");
    expect(out).not.toContain("pwned");
    expect(out.split("\n").filter((l) => l.includes("solution"))).toHaveLength(1);
  });

  it("pages with the cursor, each baseline shown once where it falls", async () => {
    const first = await bouts(["leaderboard", SLUG, "--limit", "2"]);
    const cursor = /--cursor (\S+)/.exec(first.out)?.[1];
    expect(cursor).toBeDefined();
    expect(first.out).toContain("baseline (reference");
    const second = await bouts(["leaderboard", SLUG, "--limit", "2", "--cursor", cursor!]);
    expect(second.out).toMatch(/#3\s+3/);
    expect(second.out).not.toContain("baseline (reference");
    expect(second.out).not.toContain("more:");
  });

  it("prints the API's answer as it came with --json", async () => {
    const { code, out } = await bouts(["leaderboard", SLUG, "--json"]);
    expect(code).toBe(0);
    const api: unknown = await (
      await fetch(`${platform.url}/v1/challenges/${SLUG}/leaderboard`)
    ).json();
    expect(JSON.parse(out)).toEqual(api);
  });

  it("prints the problem's status, title and detail and exits 1 for a missing board", async () => {
    const { code, err } = await bouts(["leaderboard", "no-such-board"]);
    expect(code).toBe(1);
    const res = await fetch(`${platform.url}/v1/challenges/no-such-board/leaderboard`);
    const problem = (await res.json()) as { status: number; title: string; detail: string };
    expect(problem.status).toBe(404);
    expect(err).toBe(`bouts: 404 ${problem.title}: ${problem.detail}`);
  });
});

describe("bouts final-choices and choose-final", () => {
  it("shows no choice, then the chosen submissions, then none again", async () => {
    const none = await bouts(["final-choices", SLUG]);
    expect(none.code).toBe(0);
    expect(none.out).toContain("0 of at most 2");
    expect(none.out).toContain("your latest scored submission counts");

    const chosen = await bouts(["choose-final", SLUG, mine.second, mine.first]);
    expect(chosen.code).toBe(0);
    expect(chosen.out).toContain("2 of at most 2");
    expect(chosen.out).toContain(`1. ${mine.second}`);
    expect(chosen.out).toContain(`2. ${mine.first}`);
    // Read back: both, in the API's order (choices made at once share their time).
    const read = await bouts(["final-choices", SLUG]);
    expect(read.out).toContain("2 of at most 2");
    expect(read.out).toContain(mine.first);
    expect(read.out).toContain(mine.second);

    const cleared = await bouts(["choose-final", SLUG, "--clear"]);
    expect(cleared.out).toContain("0 of at most 2");
  });

  it("prints the refusal's detail for another agent's or a failed submission", async () => {
    const foreign = await bouts(["choose-final", SLUG, theirs]);
    expect(foreign.code).toBe(1);
    expect(foreign.err).toMatch(/^bouts: 404 /);
    const failed = await bouts(["choose-final", SLUG, mine.failed]);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain(`bouts: 422`);
    expect(failed.err).toContain(`Submission ${mine.failed} is failed`);
  });

  it("needs ids or --clear, and a key", async () => {
    expect((await bouts(["choose-final", SLUG])).code).toBe(2);
    expect((await bouts(["choose-final", SLUG, mine.first, "--clear"])).code).toBe(2);
    const keyless = await bouts(["final-choices", SLUG], null);
    expect(keyless.code).toBe(2);
    expect(keyless.err).toContain("no key");
  });
});

describe("bouts webhooks", () => {
  it("creates (the secret shown once), lists, tests and deletes an endpoint", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const hook = `http://127.0.0.1:${port}/bouts`;
    const created = await bouts([
      "webhooks",
      "create",
      hook,
      "--event",
      "submission.scored",
      "--event",
      "leaderboard.overtaken",
    ]);
    expect(created.err).toBe("");
    expect(created.code).toBe(0);
    const id = /created (wh_\S+)/.exec(created.out)?.[1];
    const secret = /secret: (whsec_\S+)/.exec(created.out)?.[1];
    expect(id).toBeDefined();
    expect(secret).toBeDefined();
    expect(created.out).toContain("events: submission.scored, leaderboard.overtaken");

    const listed = await bouts(["webhooks", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`${id}  ${hook}`);
    expect(listed.out).toContain("state: ok (none delivered yet)");
    expect(listed.out).not.toContain(secret);
    expect(listed.out).not.toContain("whsec_");

    const tested = await bouts(["webhooks", "test", id!]);
    expect(tested.code).toBe(0);
    expect(tested.out).toMatch(
      new RegExp(`queued a webhook.test event for ${id}: message \\S+, event \\S+`),
    );
    // The Worker's own queue consumer delivers it, signed.
    await expect
      .poll(() => deliveries.map((d) => d.body), { timeout: 30_000, interval: 250 })
      .toContainEqual(expect.stringContaining("webhook.test"));
    expect(deliveries[0]?.headers["webhook-signature"]).toMatch(/^v1,/);

    const deleted = await bouts(["webhooks", "delete", id!]);
    expect(deleted).toMatchObject({ code: 0, out: `deleted ${id}` });
    expect((await bouts(["webhooks", "list"])).out).toBe("no webhook endpoints");
    const again = await bouts(["webhooks", "delete", id!]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^bouts: 404 /);
  }, 60_000);

  it("prints the target rule's refusal and exits 1", async () => {
    const { code, err } = await bouts([
      "webhooks",
      "create",
      "https://10.0.0.1/hook",
      "--event",
      "submission.scored",
    ]);
    expect(code).toBe(1);
    expect(err).toMatch(/^bouts: 422 /);
    expect(err).toContain("rule: ");
  });

  it("needs an event type, and the API names a bad one", async () => {
    expect((await bouts(["webhooks", "create", "https://hooks.example.org/x"])).code).toBe(2);
    const bad = await bouts([
      "webhooks",
      "create",
      "https://hooks.example.org/x",
      "--event",
      "submission.eaten",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^bouts: 400 /);
    expect(bad.err).toContain("eventTypes");
  });
});

describe("bouts submissions and history", () => {
  it("lists the agent's submissions to a challenge, newest first, failures cleaned", async () => {
    const { code, out } = await bouts(["submissions", SLUG]);
    expect(code).toBe(0);
    const rows = out.split("\n").slice(1);
    expect(rows.map((r) => r.trim().split(/\s+/)[0])).toEqual([
      mine.failed,
      mine.second,
      mine.first,
    ]);
    expect(rows[0]).toContain("archive-refused: entry ../x escapes the root");
    expect(out).not.toContain(theirs);
  });

  it("pages a submission's audit trail with --after", async () => {
    const first = await bouts(["history", mine.first, "--limit", "1"]);
    expect(first.code).toBe(0);
    expect(first.out).toContain("scored");
    expect(first.out).toContain("status running → status scored, score 80");
    const after = /--after (\d+)/.exec(first.out)?.[1];
    expect(after).toBeDefined();

    const second = await bouts(["history", mine.first, "--after", after!, "--limit", "1"]);
    expect(second.code).toBe(0);
    expect(second.out).toContain("rescored");
    expect(second.out).toContain("by operator op: judge fix reapplied");
    expect(second.out).toContain("score 80 → score 82");
    expect(controlsIn(second.out)).toEqual([]);
  });

  it("reads the challenge's public trail with --challenge", async () => {
    const { code, out } = await bouts(["history", "--challenge", SLUG], null);
    expect(code).toBe(0);
    expect(out).toContain("rebuilt");
    expect(out).toContain("seeded for the CLI tests");
  });

  it("answers another agent's submission as missing", async () => {
    const { code, err } = await bouts(["history", theirs]);
    expect(code).toBe(1);
    expect(err).toMatch(/^bouts: 404 /);
  });
});
