import { Exact, type BANDS } from "@bouts/scoring";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  buildEvent,
  buildLeaderboardOvertakenEvent,
  buildSubmissionFailedEvent,
  buildSubmissionRescoredEvent,
  buildSubmissionScoredEvent,
  buildWebhookScore,
  buildWebhookTestEvent,
  EVENT_TYPES,
  parseWebhookEvent,
  serializeEvent,
  type EventData,
  type SubmissionScoredData,
  type WebhookEvent,
} from "../src/index.ts";

const NOW = new Date("2026-03-01T12:00:00.000Z");

const SCORED: SubmissionScoredData = {
  submissionId: "sub_01",
  challengeId: "notes-api",
  score: {
    rounded: 82,
    unrounded: "82.075",
    fraction: { numerator: "3283", denominator: "40" },
  },
  band: { key: "strong", label: "Strong" },
  judging: {
    panel: "heuristic",
    summary: "Judged by the offline heuristic panel (static analysis, no model).",
  },
  rank: 3,
  breakdownUrl: "https://api.bouts.dev/v1/submissions/sub_01/breakdown",
};

describe("event builders", () => {
  it("wraps data in the { type, timestamp, data } envelope", () => {
    const r = buildSubmissionScoredEvent(SCORED, NOW);
    expect(r).toEqual({
      ok: true,
      value: { type: "submission.scored", timestamp: "2026-03-01T12:00:00.000Z", data: SCORED },
    });
  });

  it("serializes to the compact JSON that is signed and sent, and parses back", () => {
    const r = buildSubmissionScoredEvent(SCORED, NOW);
    if (!r.ok) throw new Error("build");
    const body = serializeEvent(r.value);
    expect(body.startsWith('{"type":"submission.scored","timestamp":')).toBe(true);
    expect(parseWebhookEvent(JSON.parse(body))).toEqual({ ok: true, value: r.value });
  });

  it("refuses fields outside the schema, so no other agent's data or secret can leak", () => {
    const leaky = { ...SCORED, secret: "whsec_x" } as SubmissionScoredData;
    expect(buildSubmissionScoredEvent(leaky, NOW)).toMatchObject({
      ok: false,
      error: { reason: "invalid-event", type: "submission.scored" },
    });
    const overtaken = {
      challengeId: "notes-api",
      previousRank: 2,
      newRank: 3,
      yourScore: { rounded: 80 },
      overtakingScore: { rounded: 84, agentId: "agent_rival" },
      leaderboardUrl: "https://api.bouts.dev/v1/challenges/notes-api/leaderboard",
    } as EventData<"leaderboard.overtaken">;
    const r = buildLeaderboardOvertakenEvent(overtaken, NOW);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.issues[0]?.path).toBe("data.overtakingScore");
  });

  it("builds leaderboard.overtaken only when the rank got worse", () => {
    const data = {
      challengeId: "notes-api",
      previousRank: 2,
      newRank: 3,
      yourScore: { rounded: 80 },
      overtakingScore: { rounded: 84 },
      leaderboardUrl: "https://api.bouts.dev/v1/challenges/notes-api/leaderboard",
    };
    expect(buildLeaderboardOvertakenEvent(data, NOW).ok).toBe(true);
    const r = buildLeaderboardOvertakenEvent({ ...data, newRank: 1 }, NOW);
    expect(r).toMatchObject({ ok: false, error: { issues: [{ path: "data.newRank" }] } });
  });

  it("builds submission.failed with a coded reason", () => {
    const data = {
      submissionId: "sub_02",
      challengeId: "notes-api",
      reason: { code: "run-timeout", message: "The test run exceeded 120 s." },
      submissionUrl: "https://api.bouts.dev/v1/submissions/sub_02",
    };
    expect(buildSubmissionFailedEvent(data, NOW).ok).toBe(true);
    const bad = { ...data, reason: { code: "Run Timeout!", message: "x" } };
    expect(buildSubmissionFailedEvent(bad, NOW).ok).toBe(false);
  });

  it("builds webhook.test for an endpoint", () => {
    expect(buildWebhookTestEvent("ep_1", NOW)).toMatchObject({
      ok: true,
      value: { type: "webhook.test", data: { endpointId: "ep_1" } },
    });
  });

  it("carries a score whose decimal does not terminate: a parseable decimal and the exact fraction", () => {
    const score = buildWebhookScore(Exact.of(20263, 300)); // 67.54333…
    expect(score).toEqual({
      rounded: 68,
      unrounded: "67.543333",
      fraction: { numerator: "20263", denominator: "300" },
    });
    const r = buildSubmissionScoredEvent({ ...SCORED, score }, NOW);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const parsed = JSON.parse(serializeEvent(r.value)) as WebhookEvent;
    if (parsed.type !== "submission.scored") throw new Error("type");
    expect(Number(parsed.data.score.unrounded)).toBe(67.543333);
    expect(Exact.of(BigInt(parsed.data.score.fraction.numerator), 300n).toText(4)).toBe("67.5433…");
  });

  it("publishes 100 and 0 and rounds a long terminating decimal to six places", () => {
    expect(buildWebhookScore(Exact.of(100))).toMatchObject({ rounded: 100, unrounded: "100" });
    expect(buildWebhookScore(Exact.ZERO)).toEqual({
      rounded: 0,
      unrounded: "0",
      fraction: { numerator: "0", denominator: "1" },
    });
    // 1/128 = 0.0078125 terminates after 7 places: the fraction stays exact.
    expect(buildWebhookScore(Exact.of(1, 128))).toMatchObject({ unrounded: "0.007813" });
  });

  const score = (rounded: number, unrounded: string, numerator: string, denominator = "1") => ({
    score: { rounded, unrounded, fraction: { numerator, denominator } },
  });
  it.each([
    ["a rounded score above 100", score(101, "101", "101")],
    ["a fractional rounded score", score(82.5, "82.5", "165", "2")],
    ["an unrounded score that is not decimal text", score(80, "8e1", "80")],
    ["an unrounded score with an ellipsis", score(68, "67.543333…", "20263", "300")],
    ["an unrounded score that disagrees with the fraction", score(82, "82.07", "3283", "40")],
    ["a rounded score that disagrees with the fraction", score(83, "82.075", "3283", "40")],
    ["a zero denominator", score(0, "0", "0", "0")],
    ["a score without its fraction", { score: { rounded: 82, unrounded: "82.075" } }],
    ["an unknown band", { band: { key: "legendary", label: "Legendary" } }],
    ["rank 0", { rank: 0 }],
    ["a non-http breakdown link", { breakdownUrl: "javascript:alert(1)" }],
    ["an id with a dot", { submissionId: "sub.01" }],
  ])("refuses %s", (_name, patch) => {
    const data = { ...SCORED, ...patch } as SubmissionScoredData;
    expect(buildSubmissionScoredEvent(data, NOW).ok).toBe(false);
  });

  it("accepts an unranked score", () => {
    expect(buildSubmissionScoredEvent({ ...SCORED, rank: null }, NOW).ok).toBe(true);
  });
});

describe("parseWebhookEvent", () => {
  it("refuses unknown types and a missing timestamp", () => {
    expect(
      parseWebhookEvent({ type: "submission.deleted", timestamp: NOW.toISOString(), data: {} }),
    ).toMatchObject({ ok: false, error: { reason: "invalid-event", type: "submission.deleted" } });
    expect(
      parseWebhookEvent({ type: "webhook.test", data: { endpointId: "e", message: "m" } }).ok,
    ).toBe(false);
    expect(parseWebhookEvent("not an object")).toMatchObject({ ok: false, error: { type: "" } });
  });
});

describe("event types", () => {
  it("lists the five event types and the bands of the scoring engine", () => {
    expect(EVENT_TYPES).toEqual([
      "submission.scored",
      "submission.failed",
      "submission.rescored",
      "leaderboard.overtaken",
      "webhook.test",
    ]);
    expectTypeOf<WebhookEvent["type"]>().toEqualTypeOf<(typeof EVENT_TYPES)[number]>();
    expectTypeOf<SubmissionScoredData["band"]["key"]>().toEqualTypeOf<
      (typeof BANDS)[number]["key"]
    >();
    expectTypeOf(buildEvent<"webhook.test">)
      .parameter(1)
      .toEqualTypeOf<{ endpointId: string; message: string }>();
  });
});

describe("submission.rescored", () => {
  const RESCORED = {
    submissionId: "sub_01",
    challengeId: "deep-merge",
    version: 2,
    previousVersion: 1,
    previousScore: buildWebhookScore(Exact.of(3283, 40)),
    score: buildWebhookScore(Exact.of(20263, 300)),
    band: { key: "competent" as const, label: "Competent" },
    previousRank: 1,
    rank: 2,
    breakdownUrl: "https://api.bouts.dev/v1/submissions/sub_01/breakdown",
  };

  it("carries both scores in their three agreeing forms and both ranks", () => {
    const r = buildSubmissionRescoredEvent(RESCORED, NOW);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.data.score).toEqual({
      rounded: 68,
      unrounded: "67.543333",
      fraction: { numerator: "20263", denominator: "300" },
    });
    expect(parseWebhookEvent(JSON.parse(serializeEvent(r.value))).ok).toBe(true);
  });

  it("refuses another agent's identity, a rounding that disagrees and version 1", () => {
    const smuggled = { ...RESCORED, agentId: "someone-else" } as typeof RESCORED;
    expect(buildSubmissionRescoredEvent(smuggled, NOW).ok).toBe(false);
    const lied = { ...RESCORED, score: { ...RESCORED.score, rounded: 90 } };
    expect(buildSubmissionRescoredEvent(lied, NOW).ok).toBe(false);
    expect(buildSubmissionRescoredEvent({ ...RESCORED, version: 1 }, NOW).ok).toBe(false);
  });
});
