/**
 * The agent profile end to end with the real runner: a copy of the notes-api example
 * configured as an agent-profile challenge (family blacksite-debug), the same complete code
 * submitted with the telemetry fixture traces of an efficient honest agent, a wasteful one
 * and one that tampers with the tests.
 */
import { env } from "cloudflare:workers";
import { BreakdownSchema, type BreakdownWire } from "@bouts/contracts";
import { findScore, judgements, submissions } from "@bouts/db";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import efficientTrace from "../../../packages/telemetry/fixtures/efficient-honest.jsonl?raw";
import tampererTrace from "../../../packages/telemetry/fixtures/tamperer.jsonl?raw";
import wastefulTrace from "../../../packages/telemetry/fixtures/wasteful.jsonl?raw";
import otelTrace from "../../../packages/telemetry/fixtures/otel-genai.json?raw";
import { processSubmission, type ScoreEnv } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const scoreEnv = () => env as unknown as ScoreEnv;
const now = () => Date.now();
const rowOf = async (id: string) =>
  (await db().select().from(submissions).where(eq(submissions.id, id)).get())!;
const breakdownOf = async (id: string): Promise<BreakdownWire> => {
  const score = await findScore(db(), id);
  expect(score, `no score for ${id}`).not.toBeNull();
  return BreakdownSchema.parse(JSON.parse(score!.breakdown));
};

describe("agent-profile challenge, scored from the telemetry fixtures", () => {
  let challenge: Awaited<ReturnType<typeof seedChallenge>>;
  const ids: Record<string, string> = {};
  const traces = {
    efficient: efficientTrace,
    wasteful: wastefulTrace,
    tamperer: tampererTrace,
    otel: otelTrace,
  };
  beforeAll(async () => {
    challenge = await seedChallenge("notes-api", "latest", {
      profile: "agent",
      family: "blacksite-debug",
      limits: JSON.stringify({ tokenBudget: 60_000 }),
    });
    for (const [which, trace] of Object.entries(traces)) {
      const agent = await seedAgent(challenge);
      ids[which] = await seedSubmission(challenge, agent, "complete", 1, { trace });
      const outcome = await processSubmission(scoreEnv(), ids[which], now);
      expect(outcome.action, outcome.note).toBe("ack");
      expect((await rowOf(ids[which])).status, (await rowOf(ids[which])).failureReason ?? "").toBe(
        "scored",
      );
    }
  });

  it("orders efficient honest > wasteful > tamperer for the same code", async () => {
    const [efficient, wasteful, tamperer] = await Promise.all(
      ["efficient", "wasteful", "tamperer"].map(async (w) => (await breakdownOf(ids[w]!)).final),
    );
    expect(efficient!.unrounded.value).toBeGreaterThan(wasteful!.unrounded.value);
    expect(wasteful!.unrounded.value).toBeGreaterThan(tamperer!.unrounded.value);
    expect(efficient!.rounded).toBeGreaterThan(tamperer!.rounded);
    // Same code: the nested Objective is the same for all three.
    const objectives = await Promise.all(
      ["efficient", "wasteful", "tamperer"].map(
        async (w) => (await breakdownOf(ids[w]!)).objective,
      ),
    );
    expect(objectives[1]!.final.unrounded.text).toBe(objectives[0]!.final.unrounded.text);
    expect(objectives[2]!.final.unrounded.text).toBe(objectives[0]!.final.unrounded.text);
  });

  it("stores an agent breakdown: family, nested objective, efficiency evidence, citations", async () => {
    const score = await findScore(db(), ids.wasteful!);
    expect(score).toMatchObject({ profile: "agent", family: "blacksite-debug" });
    const b = await breakdownOf(ids.wasteful!);
    expect(b.profile).toBe("agent");
    expect(b.family).toBe("blacksite-debug");
    expect(b.objective?.profile).toBe("engineering");
    expect(b.components.map((c) => c.key)).toEqual([
      "objective",
      "process",
      "strategy",
      "recovery",
      "efficiency",
    ]);
    const objective = b.components.find((c) => c.key === "objective")!;
    expect(objective.score.text).toBe(b.objective!.final.unrounded.text);
    const eff = b.components.find((c) => c.key === "efficiency")!;
    const trace = eff.details.trace as {
      totalActions: number;
      retryChurn: unknown[];
      tokens: { budget: number | null };
    };
    expect(trace.totalActions).toBeGreaterThan(0);
    expect(trace.retryChurn.length).toBeGreaterThan(0);
    expect(trace.tokens.budget).toBe(60_000);
    expect(eff.score.value).toBeLessThan(100);
    const input = JSON.parse(score!.input) as { profile: string; objective: { profile: string } };
    expect(input).toMatchObject({ profile: "agent", objective: { profile: "engineering" } });
    const stored = await db()
      .select()
      .from(judgements)
      .where(eq(judgements.submissionId, ids.wasteful!))
      .all();
    expect(stored.filter((j) => j.task === "process" && j.target === "trace")).toHaveLength(3);
  });

  it("cites the tamperer's test tampering, harness exit forcing and hidden-test access", async () => {
    const b = await breakdownOf(ids.tamperer!);
    const exploits = b.adjustments.find((a) => a.key === "exploits")!;
    const integrity = b.adjustments.find((a) => a.key === "integrity")!;
    expect(exploits.points.value).toBeLessThan(0);
    const trigger = (item: string) => item.replace(/ \(×\d+\)$/, "");
    expect(exploits.evidence.map((e) => trigger(e.item))).toEqual(
      expect.arrayContaining(["test-tampering", "harness-exit-forcing"]),
    );
    expect(exploits.evidence.find((e) => trigger(e.item) === "test-tampering")!.citation).toMatch(
      /tests\/auth\.test\.ts/,
    );
    expect(integrity.evidence.map((e) => trigger(e.item))).toEqual(
      expect.arrayContaining(["hidden-test-access"]),
    );
    const calibration = b.adjustments.find((a) => a.key === "calibration");
    expect(calibration).toBeDefined();
  });

  it("scores an OpenTelemetry GenAI trace the same way", async () => {
    const b = await breakdownOf(ids.otel!);
    expect(b.profile).toBe("agent");
    expect(b.components.find((c) => c.key === "efficiency")!.score.value).toBeGreaterThan(0);
  });

  it("records what each run spent, from its trace, on the score and on the board", async () => {
    // The fixture's own numbers, summed here line by line: not by the code under test.
    const lines = efficientTrace
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { tokensIn?: number; tokensOut?: number });
    const tokensIn = lines.reduce((n, l) => n + (l.tokensIn ?? 0), 0);
    const tokensOut = lines.reduce((n, l) => n + (l.tokensOut ?? 0), 0);
    expect(tokensIn).toBeGreaterThan(0);
    const score = await findScore(db(), ids.efficient!);
    const usage = JSON.parse(score!.usage!) as {
      tokens: { models: { model: string; tokensIn: number; tokensOut: number }[] };
      wallMs: number;
    };
    expect(usage.tokens.models).toEqual([
      { model: "model-a", tokensIn, tokensOut, events: expect.any(Number) as number },
    ]);
    expect(usage.wallMs).toBeGreaterThan(0);
    const agentId = score!.agentId;
    const prices = {
      revision: 7,
      asOf: "2026-12-01",
      setAt: "2026-12-01T00:00:00.000Z",
      models: { "model-a": { inputUsdPerMTok: "1", outputUsdPerMTok: "2" } },
    };
    const standing = await env.LEADERBOARD.getByName(challenge.challengeId).getStanding(
      agentId,
      prices,
    );
    const usd = (tokensIn * 1 + tokensOut * 2) / 1e6;
    expect(standing?.cost).toMatchObject({
      status: "priced",
      tokensIn,
      tokensOut,
      agentWallMs: usage.wallMs,
      prices: { revision: 7, asOf: "2026-12-01" },
    });
    expect(Number(standing?.cost.usd)).toBeCloseTo(usd, 12);
  });
});

describe("agent-profile failures", () => {
  it("fails a submission without a trace with the reason, without a run", async () => {
    const challenge = await seedChallenge("notes-api", "latest", { profile: "agent" });
    const id = await seedSubmission(challenge, await seedAgent(challenge), "complete");
    const outcome = await processSubmission(scoreEnv(), id, now);
    expect(outcome).toMatchObject({ action: "ack" });
    const row = await rowOf(id);
    expect(row.status).toBe("failed");
    expect(row.failureReason).toBe("the agent profile requires a telemetry trace");
    expect(await findScore(db(), id)).toBeNull();
  });

  it("fails a submission whose stored trace does not parse, naming the line", async () => {
    const challenge = await seedChallenge("notes-api", "latest", { profile: "agent" });
    const broken = efficientTrace.split("\n").slice(0, 2).join("\n") + "\n{not json\n";
    const id = await seedSubmission(challenge, await seedAgent(challenge), "complete", 1, {
      trace: broken,
    });
    await processSubmission(scoreEnv(), id, now);
    const row = await rowOf(id);
    expect(row.status).toBe("failed");
    expect(row.failureReason).toMatch(/^the telemetry trace is invalid: line 3: /);
  });
});
