import { env } from "cloudflare:workers";
import { BreakdownSchema, RunReportSchema } from "@bouts/contracts";
import { findScore } from "@bouts/db";
import { describe, expect, it } from "vitest";
import { processSubmission, type ScoreEnv } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const now = () => Date.now();

async function storedReport(submissionId: string) {
  const object = await env.ARTIFACTS.get(`reports/${submissionId}.json`);
  return RunReportSchema.parse(JSON.parse(await object!.text()));
}

describe("generated adversarial tests in scoring", () => {
  it("scores with the deterministic generator's tests and shows the 40/60 make-up", async () => {
    const challenge = await seedChallenge("deep-merge");
    const id = await seedSubmission(challenge, await seedAgent(challenge), "complete");
    const outcome = await processSubmission(env, id, now);
    expect(outcome.action, outcome.note).toBe("ack");
    const report = await storedReport(id);
    expect(report.generation!.generators.map((g) => g.kind)).toEqual(["deterministic"]);
    const breakdown = BreakdownSchema.parse(JSON.parse((await findScore(db(), id))!.breakdown));
    const adversarial = breakdown.components.find((c) => c.key === "adversarial")!;
    const composition = (adversarial.details as { composition: { generated: { tests: number } } })
      .composition;
    expect(composition.generated.tests).toBe(
      report.adversarialTests.filter((t) => t.origin === "generated").length,
    );
    expect(composition.generated.tests).toBeGreaterThan(0);
  });

  it("adds a model's tests that the reference passes, fenced and checked, and drops the rest", async () => {
    const challenge = await seedChallenge("deep-merge");
    const id = await seedSubmission(challenge, await seedAgent(challenge), "insecure");
    const modelEnv = {
      ...(env as unknown as ScoreEnv),
      GENERATOR_MODE: "openai",
      GENERATOR_MODEL: "fake-model",
      GENERATOR_OPENAI_BASE_URL: "http://model.test/v1",
    } as ScoreEnv;
    const outcome = await processSubmission(modelEnv, id, now);
    expect(outcome.action, outcome.note).toBe("ack");
    const report = await storedReport(id);
    const model = report.generation!.generators.find((g) => g.kind === "llm")!;
    expect(model).toMatchObject({ status: "ok", model: "fake-model", candidates: 2, selected: 1 });
    expect(model.dropped.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^fails on the reference solution/),
    ]);
    const written = report.adversarialTests.filter((t) => t.generated?.kind === "llm");
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ severity: "critical", status: "failed" });
    // Model tests come first inside the same budget; the generated weight never exceeds it.
    const g = report.generation!;
    expect(g.weightHalves.generated).toBeLessThanOrEqual(g.weightHalves.budget);

    const prompt = await (
      await fetch("http://model.test/last")
    ).json<{
      messages: { role: string; content: string }[];
    }>();
    const user = prompt.messages.find((m) => m.role === "user")!.content;
    expect(user).toMatch(/<<<BEGIN-UNTRUSTED-[0-9a-f]+ submission>>>/);
    expect(user).toContain("merge.mjs");
    expect(user).toContain('"kind": "module"');
  });

  it("keeps scoring with the deterministic tests when the model is unreachable", async () => {
    const challenge = await seedChallenge("deep-merge");
    const id = await seedSubmission(challenge, await seedAgent(challenge), "complete");
    const outcome = await processSubmission(
      {
        ...(env as unknown as ScoreEnv),
        GENERATOR_MODE: "openai",
        GENERATOR_MODEL: "fake-model",
        GENERATOR_OPENAI_BASE_URL: "http://unreachable.test/v1",
        GENERATOR_TIMEOUT_MS: "5000",
      },
      id,
      now,
    );
    expect(outcome.action, outcome.note).toBe("ack");
    const model = (await storedReport(id)).generation!.generators.find((g) => g.kind === "llm")!;
    expect(model.status).toBe("unavailable");
    expect(model.detail).toMatch(/http 502/);
  });

  it("writes no model tests for a submission that addresses the model", async () => {
    const challenge = await seedChallenge("deep-merge");
    const bytes = new Uint8Array(
      await (
        await env.FIXTURES.fetch("http://fixtures/injected/deep-merge/complete")
      ).arrayBuffer(),
    );
    const id = await seedSubmission(challenge, await seedAgent(challenge), bytes);
    const outcome = await processSubmission(
      {
        ...(env as unknown as ScoreEnv),
        GENERATOR_MODE: "openai",
        GENERATOR_MODEL: "fake-model",
        GENERATOR_OPENAI_BASE_URL: "http://model.test/v1",
      },
      id,
      now,
    );
    expect(outcome.action, outcome.note).toBe("ack");
    const report = await storedReport(id);
    const model = report.generation!.generators.find((g) => g.kind === "llm")!;
    expect(model.status).toBe("unavailable");
    expect(model.detail).toMatch(/addressed to a model/);
    expect(report.adversarialTests.some((t) => t.generated?.kind === "llm")).toBe(false);
  });
});
