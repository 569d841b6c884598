/**
 * buildEventBody: the score role's event messages become strict payloads with our links and
 * only the recipient's data; a message that lacks a needed field is refused, not guessed (by its
 * contract, `EventMessageSchema`, which the consumer parses every message with).
 */
import { describe, expect, it } from "vitest";
import { EventMessageSchema, type EventMessage } from "@bouts/contracts";
import { buildEventBody, type EventContext } from "../src/events.ts";

const ctx: EventContext = {
  linkOrigin: "https://api.bouts.dev",
  now: new Date("2026-03-01T12:00:00.000Z"),
  recipientScore: 70,
};
const base = {
  v: 1 as const,
  kind: "event" as const,
  agentId: "agent-1",
  challengeId: "notes-api",
  submissionId: "sub_02",
};

describe("buildEventBody", () => {
  it("maps a failure reason to a code and message with the submission link", () => {
    const msg: EventMessage = {
      ...base,
      eventId: "evt_sub_02_failed",
      type: "submission.failed",
      data: { reason: "run-timeout" },
    };
    const body = buildEventBody(msg, ctx);
    if (!body.ok) throw new Error(JSON.stringify(body.error));
    expect(JSON.parse(body.value)).toEqual({
      type: "submission.failed",
      timestamp: "2026-03-01T12:00:00.000Z",
      data: {
        submissionId: "sub_02",
        challengeId: "notes-api",
        reason: { code: "run-timeout", message: "run-timeout" },
        submissionUrl: "https://api.bouts.dev/v1/submissions/sub_02",
      },
    });
  });

  it("names neither agent in leaderboard.overtaken", () => {
    const msg: EventMessage = {
      ...base,
      eventId: "evt_sub_02_overtook_agent-9",
      type: "leaderboard.overtaken",
      data: { previousRank: 1, rank: 2, byScore: 88 },
    };
    const body = buildEventBody(msg, ctx);
    if (!body.ok) throw new Error(JSON.stringify(body.error));
    expect(body.value).not.toContain("agent-");
    expect((JSON.parse(body.value) as { data: unknown }).data).toEqual({
      challengeId: "notes-api",
      previousRank: 1,
      newRank: 2,
      yourScore: { rounded: 70 },
      overtakingScore: { rounded: 88 },
      leaderboardUrl: "https://api.bouts.dev/v1/challenges/notes-api/leaderboard",
    });
  });

  it("publishes a score whose decimal does not terminate, with its exact fraction", () => {
    const msg: EventMessage = {
      ...base,
      eventId: "evt_sub_02_scored",
      type: "submission.scored",
      // What the score role enqueues: the breakdown's text ends in "…" for such a score.
      data: {
        score: 68,
        unrounded: "67.543333…",
        fraction: "20263/300",
        band: "competent",
        rank: 2,
      },
    };
    const body = buildEventBody(msg, ctx);
    if (!body.ok) throw new Error(JSON.stringify(body.error));
    const { data } = JSON.parse(body.value) as { data: { score: unknown } };
    expect(data.score).toEqual({
      rounded: 68,
      unrounded: "67.543333",
      fraction: { numerator: "20263", denominator: "300" },
    });
  });

  it("takes the stored fraction for a scored event queued without one", () => {
    const msg: EventMessage = {
      ...base,
      eventId: "evt_sub_02_scored",
      type: "submission.scored",
      data: { score: 68, unrounded: "67.543333…", band: "competent", rank: 2 },
    };
    expect(buildEventBody(msg, ctx).ok).toBe(false);
    expect(buildEventBody(msg, { ...ctx, storedFraction: "20263/300" }).ok).toBe(true);
  });

  it("says who judged a score, and never passes an unrecorded panel off as models", () => {
    // As the consumer reads it: parsed with its contract.
    const scored = (judging: unknown): EventMessage =>
      EventMessageSchema.parse({
        ...base,
        eventId: "evt_sub_03_scored",
        type: "submission.scored",
        data: { score: 68, fraction: "20263/300", band: "competent", rank: 2, judging },
      });
    const judgingOf = (m: EventMessage) => {
      const body = buildEventBody(m, ctx);
      if (!body.ok) throw new Error(JSON.stringify(body.error));
      return (JSON.parse(body.value) as { data: { judging: { panel: string } } }).data.judging;
    };
    const heuristic = { panel: "heuristic", summary: "Judged by the offline heuristic panel." };
    expect(judgingOf(scored(heuristic))).toEqual(heuristic);
    // Queued before provenance was recorded, or malformed: "unspecified", never "model".
    for (const v of [undefined, { panel: "oracle", summary: "x" }, "model"])
      expect(judgingOf(scored(v)).panel).toBe("unspecified");
  });

  it("refuses a scored event without its score", () => {
    const msg = {
      ...base,
      eventId: "evt_sub_02_scored",
      type: "submission.scored",
      data: { band: "strong", rank: 1 },
    };
    const parsed = EventMessageSchema.safeParse(msg);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toEqual(["data.score"]);
  });
});

describe("buildEventBody: submission.rescored", () => {
  const msg: EventMessage = {
    ...base,
    eventId: "evt_sub_02_rescored_v2",
    type: "submission.rescored",
    data: {
      version: 2,
      previousVersion: 1,
      score: 68,
      fraction: "20263/300",
      previousScore: 82,
      previousFraction: "3283/40",
      band: "competent",
      previousRank: 1,
      rank: 2,
    },
  };

  it("publishes both exact scores, both ranks and the breakdown link", () => {
    const body = buildEventBody(msg, ctx);
    if (!body.ok) throw new Error(JSON.stringify(body.error));
    const data = (JSON.parse(body.value) as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({
      version: 2,
      previousVersion: 1,
      previousScore: { rounded: 82, unrounded: "82.075" },
      score: { rounded: 68, unrounded: "67.543333" },
      band: { key: "competent" },
      previousRank: 1,
      rank: 2,
      breakdownUrl: "https://api.bouts.dev/v1/submissions/sub_02/breakdown",
    });
  });

  it("refuses a message whose rounding disagrees with its fraction, or that lacks one", () => {
    expect(buildEventBody({ ...msg, data: { ...msg.data, score: 70 } }, ctx).ok).toBe(false);
    const { previousFraction: _dropped, ...rest } = msg.data;
    expect(EventMessageSchema.safeParse({ ...msg, data: rest }).success).toBe(false);
  });
});
