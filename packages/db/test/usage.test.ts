/**
 * Proves runner-time accounting and the price table against a real D1: a runner request is
 * charged once; the window is (now − window, now]; the retry time is when enough of the
 * oldest runs leave the window to fall below the ceiling; another agent's time never counts;
 * price revisions only grow and the highest is in force.
 */
import { describe, expect, it } from "vitest";
import {
  findCurrentPriceTable,
  findRunnerRetryAt,
  recordRunnerUsage,
  savePriceTable,
  sumRunnerMs,
  summarizeRunnerUsage,
} from "../src/index.ts";
import { T0, seedEntrant, seedOperator, seedSubmission, testDb } from "./seed.ts";

const db = testDb();

describe("runner usage", () => {
  it("charges a request once, sums inside the window and summarises by challenge", async () => {
    const { operatorId, agentId, challengeId } = await seedEntrant(db);
    const second = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    const run = (runId: string, ms: number, at: number, kind: "run" | "generated" = "run") => ({
      runId,
      kind,
      submissionId: id,
      agentId,
      challengeId,
      runnerMs: ms,
      recordedAt: at,
    });
    await recordRunnerUsage(db, run("r1", 1000, T0 + 10));
    await recordRunnerUsage(db, run("r1", 5000, T0 + 11));
    await recordRunnerUsage(db, run("r1", 200.4, T0 + 12, "generated"));
    await recordRunnerUsage(db, run("r2", -5, T0 + 20));
    await recordRunnerUsage(db, { ...run("r3", 300, T0 + 30), challengeId: "elsewhere" });
    const { id: theirs } = await seedSubmission(db, second.agentId, second.challengeId);
    await recordRunnerUsage(db, {
      ...run("r4", 9999, T0 + 30),
      submissionId: theirs,
      agentId: second.agentId,
    });
    expect(await sumRunnerMs(db, agentId, T0)).toBe(1500);
    // `since` is exclusive.
    expect(await sumRunnerMs(db, agentId, T0 + 10)).toBe(500);
    expect(await summarizeRunnerUsage(db, agentId, T0)).toEqual([
      { challengeId, runs: 3, runnerMs: 1200, lastRecordedAt: T0 + 20 },
      { challengeId: "elsewhere", runs: 1, runnerMs: 300, lastRecordedAt: T0 + 30 },
    ]);
    expect(operatorId).not.toBe(second.operatorId);
  });

  it("answers when an agent over its ceiling may spend again, and null below it", async () => {
    const { agentId, challengeId } = await seedEntrant(db);
    const { id } = await seedSubmission(db, agentId, challengeId);
    const window = 1000;
    for (const [i, ms] of [400, 300, 300].entries()) {
      await recordRunnerUsage(db, {
        runId: `w${i}`,
        kind: "run",
        submissionId: id,
        agentId,
        challengeId,
        runnerMs: ms,
        recordedAt: T0 + 100 * (i + 1),
      });
    }
    // 1000 ms used against a ceiling of 1000: free once the first run (400) leaves.
    expect(await findRunnerRetryAt(db, agentId, T0 + 500, window, 1000)).toBe(T0 + 100 + window);
    // Against 500, the first two must leave.
    expect(await findRunnerRetryAt(db, agentId, T0 + 500, window, 500)).toBe(T0 + 200 + window);
    expect(await findRunnerRetryAt(db, agentId, T0 + 500, window, 1001)).toBeNull();
    // Once the first run left the window, 600 remain.
    expect(await findRunnerRetryAt(db, agentId, T0 + 100 + window, window, 1000)).toBeNull();
  });
});

describe("the price table", () => {
  it("appends revisions, the highest in force, and refuses to rewrite one", async () => {
    const op = await seedOperator(db);
    expect(await findCurrentPriceTable(db)).toBeNull();
    const models = { m: { inputUsdPerMTok: "1.5", outputUsdPerMTok: "6" } };
    const first = await savePriceTable(db, { asOf: "2026-01-01", models, setBy: op, setAt: T0 });
    const second = await savePriceTable(db, {
      asOf: "2026-02-01",
      models: {},
      setBy: op,
      setAt: T0 + 1,
    });
    expect(second.revision).toBeGreaterThan(first.revision);
    expect(await findCurrentPriceTable(db)).toEqual({
      revision: second.revision,
      asOf: "2026-02-01",
      models: "{}",
      setBy: op,
      setAt: T0 + 1,
    });
    expect(JSON.parse(first.models)).toEqual(models);
    await expect(db.$client.prepare("UPDATE price_tables SET as_of = 'x'").run()).rejects.toThrow();
    await expect(db.$client.prepare("DELETE FROM price_tables").run()).rejects.toThrow();
  });
});
